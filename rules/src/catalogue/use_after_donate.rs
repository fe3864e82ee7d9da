declare_rule! {
    /// ## What it checks
    /// After `let y = f(x)` where `f` declares `aliases(return = x)`, any later read of `x` in the
    /// caller, on some path, before `x` is re-bound: including `Copy` handles (a `u64` device
    /// pointer) that the borrow checker lets through. The place donated may be a local, a field
    /// path (`meta.kv`, `self.buf`), an element at a constant index (`bufs[0]`, `layers[1].kv`:
    /// `bufs[1]` is another element; an index that is not a constant names no element) or what a
    /// reference points to (`&mut x`, `*x`). A donation on
    /// one branch counts after the branches join unless that branch re-binds the name
    /// (`x = f(x)`, also each name of a destructuring assignment `(x, logits) = f(x)`,
    /// `Step { x, logits } = f(x)`);
    /// `let x = f(x)` names the output, and the old `x` is never named again. In a
    /// loop, a donation not re-bound before the end of the body is read by the next iteration.
    /// Another name for the same storage made before the call (`let before = x;`,
    /// `let view = &x;`) is donated with it. A helper of the same file without a contract that
    /// donates its parameter or a field of `self` donates the argument at each call, as if it had
    /// the contract (one that writes the output back through `&mut` does not). A closure run where
    /// it is written (`(|| f(x))()`, `for_each`, `cond.then(|| f(x))`) donates there, as does a
    /// donating function handed by its path to a combinator of a value made there
    /// (`Some(x).map(DevBuf::relu_)`, `on.then_some(x).map(relu)`); a closure
    /// created after the donation that names `x` reads it. A thread or task spawned with a closure
    /// or an `async` block that donates a name it captures (`tokio::spawn(async move { f(x) })`)
    /// may donate it from the spawn on: a read after the spawn races with it. Not seen: a read of a whole value one of whose fields was
    /// donated (`consume(meta)` after `f(meta.kv)`), and a closure created before the donation and
    /// called after it.
    ///
    /// ## Why it matters
    /// A donated input's buffer now belongs to the output and is overwritten by it. Reading the input
    /// reads the output's bytes; writing it corrupts the output.
    ///
    /// ## Example
    /// ```rust,ignore
    /// let out = add_inplace_async(stream, buf, other); // aliases(return = buf)
    /// let norm = read(buf); // buf was donated to `out`
    /// ```
    ///
    /// ## Use instead
    /// ```rust,ignore
    /// let buf = add_inplace_async(stream, buf, other); // re-bound: the name now means the output
    /// let norm = read(buf);
    /// ```
    ///
    /// ## Real case
    /// XLA's explicit input/output alias map for asynchronous in-place ops: the output may share a
    /// specific input's buffer, so that input is dead after the op.
    pub static USE_AFTER_DONATE = "use_after_donate", Error, [Checker, Runtime], "an input is used after it was donated to an output";
}
