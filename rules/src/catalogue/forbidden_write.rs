declare_rule! {
    /// ## What it checks
    /// In a function with `forbids_write(P[C])`: assignments, compound assignments and index
    /// assignments to P at C, mutating methods on that region (`fill`, `copy_from_slice`,
    /// `iter_mut`, ...), a write anywhere in the element at C (`P[NULL_BLOCK].fill(0.0)`,
    /// `P[0].data.clear()`, a method of the element's type that writes it, a borrow `let b = &mut
    /// P[0];` written through), and passing P to a callee whose contract `writes` it or to a
    /// helper that writes it (of the same file, or of another file reached by path; a helper
    /// that writes the position it is given, `zero_block(pool, NULL_BLOCK)` with
    /// `pool[b] = 0.0` or `self.blocks[b].fill(..)` in it, writes the argument's); writes
    /// through a reborrow, a view or a slice of P (`let head = &mut P[..2];`, `let v =
    /// P.as_mut_slice();`, `for x in P.as_mut_slice()`) count where their positions
    /// are known, and so do one element taken from P (`P.iter_mut().next()`, `.nth(k)`, the head
    /// of `P.split_first_mut()`, `P.as_mut_slice()[k]`, a name a slice pattern binds by
    /// position, `if let [null, rest @ ..] = P`, a reference an accessor returns into P at the
    /// position it was given: `self.block_mut(NULL_BLOCK).fill(0.0)` with `&mut self.data[b *
    /// BS..(b + 1) * BS]` in it) and a write through a raw pointer into P
    /// in the body (`ptr::write(P.as_mut_ptr(), ..)`, `*P.as_mut_ptr().add(k) = ..`,
    /// `ptr::write_bytes`, `ptr::copy_nonoverlapping`). Not judged statically: a raw pointer
    /// handed to a kernel (`P.as_mut_ptr()`: what
    /// the kernel writes is its contract's statement, checked at run time) and growing P
    /// (`push`, `extend`, `resize(P.len() + n, ..)` write past its end). A loop over
    /// `P.iter_mut().enumerate()` that skips the region's position (a leading `if i == C {
    /// continue; }`, `.filter(|(i, _)| *i != C)`; also past `.take(n)`) writes every other
    /// position, and one whose items are only read (`total += *x`) writes none. Blocks of
    /// `P.chunks_mut(w)` are narrowed the same way (`.skip(1)`, the index of `enumerate`): of a
    /// width `w` that is no constant, block 0 holds position 0 and the blocks from 1 on never do. At call
    /// sites: a caller that forbids a place and hands it to a writer, and any caller that passes a
    /// constant index (`pool.write(0, &row)`, `NULL_BLOCK as i64`, `reserved_block()` of a function
    /// without arguments whose body is a constant, of the file or of another crate of the workspace; a loop variable
    /// over a local list of block numbers that holds one, `vec![NULL_BLOCK, 1, 2]` or a list it was pushed into,
    /// reported at the write) to a writer whose own contract
    /// forbids that position of the place it writes (`writes(self.blocks[block])` with
    /// `forbids_write(self.blocks[0])`; the `skip` sentinel is no write), and a buffer of
    /// positions that such a writer writes at every entry (vLLM's `copy_blocks(cache, &src,
    /// &dst)` with `writes(cache[dst])` and `forbids_write(cache[NULL_BLOCK])`) holding a position
    /// of the region: `&[NULL_BLOCK]`, `vec![0; n]`, a helper's, a struct field's, pushed in a
    /// loop, handed on through a helper; reported where the entry is made, as the padding rule
    /// reports its zeros (a fallback, `unwrap_or(0)`, is `fallback_index`'s). At run time, a
    /// fingerprint of the region taken before and after the call.
    ///
    /// `forbids_write(P[C], except(f, ..))` names *sanctioned writers*, functions marked
    /// `#[reuse::sanctioned]` that may write the region on purpose (a health check writing a dummy
    /// token into block 0, allocators starting at block 1). They are matched by definition path:
    /// the `except` path is resolved where the contract is written, so `health_check` of another
    /// module is not one. Statically, a function its own clause names may write the region, and the
    /// region may be handed to a sanctioned writer; at run time, a change is no violation when a
    /// sanctioned writer of the clause is running (it made the call) or ran during the call.
    ///
    /// ## Why it matters
    /// Reserved storage (the null block of a paged KV cache, a shared prefix) is read by many;
    /// one write corrupts them all, silently.
    ///
    /// ## Example
    /// ```rust,ignore
    /// #[reuse::contract(forbids_write(key_cache[NULL_BLOCK]))]
    /// fn clear(key_cache: &mut [Block]) { key_cache[NULL_BLOCK].fill(0.0); }
    /// ```
    ///
    /// ## Use instead
    /// ```rust,ignore
    /// fn clear(key_cache: &mut [Block]) { for b in &mut key_cache[NULL_BLOCK + 1..] { b.fill(0.0); } }
    /// ```
    ///
    /// or, where one function writes the reserved block on purpose, name it:
    /// ```rust,ignore
    /// #[reuse::contract(writes(kv[slots], skip = PAD_SLOT_ID), forbids_write(kv[NULL_BLOCK], except(health_check)))]
    /// fn write_kv(kv: &mut [f32], slots: &[i64]) { /* ... */ }
    ///
    /// #[reuse::sanctioned]
    /// fn health_check(kv: &mut [f32]) { write_kv(kv, &[0]); }
    /// ```
    ///
    /// ## Real case
    /// vLLM's null block 0, owned by no request, must never be written by dummy or padding rows.
    pub static FORBIDDEN_WRITE = "forbidden_write", Error, [Checker, Runtime], "forbidden storage is written";
}
