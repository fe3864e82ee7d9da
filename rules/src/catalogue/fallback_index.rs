declare_rule! {
    /// ## What it checks
    /// An index passed to a function that `writes(P[IDX])` whose value may come from a fallback
    /// default: `unwrap_or(c)` (`unwrap_or(&c)` too), `unwrap_or_default()`, `map_or(c, ..)`,
    /// `map_or_else(|| c, ..)`, `unwrap_or_else(|| c)`, or a branch of a `match`, `if let` or
    /// `if`/`else` that produces a constant while another branch does not (all constant: a
    /// table, not a fallback; a branch that gives the compared local back, `if b == NULL_BLOCK {
    /// alloc() } else { b }`, holds only what its condition leaves it), for a scalar index as for the entries of an index buffer (also
    /// one entry at a time: `for &b in &blocks { pool.write(b, ..) }`; a fallback pushed into a
    /// buffer or written in a list literal, `copy_blocks(c, &[src], &[dst])`, `vec![dst]`),
    /// followed through locals (on any branch), struct fields (nested ones, `s.pos.block`) and
    /// tuple elements (`p.0`), closures bound to a local and called (`let block_of = |p|
    /// table.get(p / BS).copied().unwrap_or(0);`), and helpers that return it (of the
    /// same file, or of another file of the workspace reached by path, `unwrap_or_else(kv::reserved_block)` too: reported at the call of
    /// the helper, with a label where the helper falls back; a helper's constant exit counts
    /// next to its others, `if t.is_empty() { return 0; }` or `None => return 0`; where the
    /// writer also forbids that block, this is the one finding, not a second `forbidden_write`). A helper that
    /// hands its parameter on to the writer's index (`fn put(pool, b, row) { pool.write(b, row) }`)
    /// writes what its caller passes there, also from another file or crate and under another
    /// name (`use sched::rows::write_row as put_row;`) in a file that calls no writer itself; a method that hands on a field of `self` (`fn
    /// apply(self, pool) { pool.write(self.block, ..) }`) writes what the caller's value holds
    /// there (`BlockWrite { block: t.get(i).copied().unwrap_or(0), .. }.apply(pool)`). Constants may be computed from
    /// others (`const NO_BLOCK: usize = FIRST - 1;`). Where a condition shows the index differs
    /// from the fallback (`if b != NULL_BLOCK { pool.write(b, ..) }`, `if b > 0`, after `if b ==
    /// NULL_BLOCK { return; }` or `assert_ne!(b, NULL_BLOCK)`, in the arms after `NULL_BLOCK =>
    /// {}` of a `match b`), the write does not take it. With `skip = S`, a fallback to `S` is the way to say "no write"; any other
    /// constant is a finding. Without `skip`, every constant fallback is.
    ///
    /// `unwrap_or_default()` of a whole index buffer (`tables.get(&seq).cloned()
    /// .unwrap_or_default()` passed as a `&[usize]` index) is an empty buffer: no write, no
    /// finding (walked by a `for`, directly or through a local bound to it, it yields no entry);
    /// of one index, or of an entry put into a buffer, it is 0. A branch of an `if` or `match`
    /// value is read where it ends, under what its test told (`if block == PAD { PAD } else {
    /// block * BS + off }` scales no `PAD` fallback).
    ///
    /// Index arithmetic carries the fallback of the operand that holds the block id: in a
    /// product, each factor that is not a constant (`block * BS`; none when a factor is 0); in a
    /// sum, the product operand (the base of `block * BS + off`), else the left one (`base +
    /// off`); in `-`, `/`, `<<`, `>>`, the left one; `%` and bit masks (an offset in a block)
    /// carry none. So a fallback block in `block * 16 + pos % 16` is reported, and so is a
    /// fallback to the sentinel there (`NO_SLOT * 16 + off` is no longer the sentinel); an offset
    /// fallback added to a checked base (`block * 16 + off.unwrap_or(0)`) is not.
    ///
    /// ## Why it matters
    /// Engines whose block ids are plain integers have no sentinel: a missing entry that silently
    /// becomes block 0 (or any fixed block) writes into storage another sequence owns. The bug
    /// hides in the one line that handles the missing case.
    ///
    /// ## Example
    /// ```rust,ignore
    /// #[reuse::contract(writes(self.blocks[block]))]
    /// fn write(&mut self, block: usize, row: &Row);
    ///
    /// let b = table.get(i).copied().unwrap_or(0);   // a missing entry becomes block 0
    /// cache.write(b, &row);
    /// ```
    ///
    /// ## Use instead
    /// Handle the missing entry (skip the write, return an error), or declare a sentinel in the
    /// contract (`writes(self.blocks[block], skip = NO_BLOCK)`) and fall back to it:
    /// ```rust,ignore
    /// let Some(&b) = table.get(i) else { return Err(MissingBlock(i)) };
    /// cache.write(b, &row);
    /// ```
    pub static FALLBACK_INDEX = "fallback_index", Error, [Checker], "a write index falls back to a constant that is not the sentinel";
}
