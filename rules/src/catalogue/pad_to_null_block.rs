declare_rule! {
    /// ## What it checks
    /// At every call of a function with `writes(P[IDX], skip = S)`, what the entries of the buffer
    /// passed for IDX may hold on some path to the call: padding and dummy entries must be S, never
    /// 0 or the null block. IDX may be a parameter, a field path of one (`meta.slot_mapping`) or of
    /// the receiver (`self.vars.slots`). Flagged: `vec![0; n]`, `resize(n, 0)`, `fill(0)`,
    /// `zeros(..)`, `Tensor::full(0, ..)`, candle's `pad_with_zeros` and `Tensor::cat` of a zero
    /// tail, burn's `pad(pads, 0)` and zeros brought in by `from_data(TensorData::new(..))` or
    /// `from_ints([..])`, producers (`array::from_fn(|_| 0)`, `resize_with(n,
    /// Default::default)`, `fill_with(|| 0)`), a buffer made on first use
    /// (`self.slots.get_or_insert_with(|| vec![0; n])`), `once(0)`, `push(0)` or `buf[i] = 0` in a padding loop, `unwrap_or(0)` /
    /// `unwrap_or_default()` fallbacks, a reset to S on one branch only or only after the buffer was
    /// already used, the same through conversions (`Tensor::new(&slots, ..)`,
    /// `into_boxed_slice()`), struct literals, rows padded in place and then flattened (`for row
    /// in rows.iter_mut() { row.resize(n, 0); }` then `rows.concat()`), one buffer of a collection of them (`&self.by_size[&bs]`, `bufs.get(&bs)`, of a
    /// map collected from `(bs, vec![0; bs])` pairs or filled by `insert`; not followed where the function writes
    /// one of them through a borrow, `get_mut`, `iter_mut`, `coll[k].fill(..)`), the value a `loop` breaks with, a `static` or
    /// `const` array of the file (`static DUMMY_SLOTS: [i64; 8] = [0; 8];`, reported where it is
    /// passed), a constant computed from others (`PAD_SLOT_ID + 1` is 0), helpers of the same
    /// file or of another (a buffer they return, or a parameter they pad, also with the value the
    /// caller gives them: `pad_into(&mut slots, n, 0)`; a builder's chain of methods that return
    /// `&mut Self`, `b.push_seq(real).pad_to(n).finish()`, whose `finish` gives the slots away
    /// with `mem::take`, or that take and return it by value, in any order:
    /// `StepBuilder::default().slots(s).tables(t).build()`), and a persistent
    /// buffer (`self.field`) that another method of its type leaves with 0 (its constructor, or the
    /// method that prepares a replay). A private method that only its type's methods call, on
    /// `self`, reads what each caller left: the finding is at the caller that runs it on the
    /// zero-filled buffer (`warmup` calling `self.launch()`), not at one that resets it first
    /// (`self.prepare(real); self.launch();`). A field declared `#[reuse::index(skip = S)]` (on a struct with
    /// `#[reuse::indexes]`) is held to S wherever it is built or changed: a struct literal (one bound
    /// to a local where its field goes: a kernel, a call, the caller, a field), and what a
    /// function leaves in it. A helper without a contract that hands its parameter (or a field
    /// path in one) on to such a kernel's index, as given or added to, is checked as if it had the
    /// kernel's `writes` clause: `layer.forward(&key, &meta)` where `forward` passes
    /// `&meta.slot_mapping` to `reshape_and_cache`, through helpers, files and crates, and in files
    /// that never name the kernel; also where a `macro_rules!` macro of the file, or of another
    /// file of the crate where Rust scopes it (`#[macro_use] mod macros;`), builds the buffer
    /// (`padded_slots!(real, n, 0)`) or wraps the kernel's call (`launch!(cache, &slots)`). Not flagged: zeros every entry of which is then replaced (a fill or
    /// loop over the whole buffer; the real rows copied into `buf[..k]` and `buf[k..]` set to S by
    /// `fill` or a loop to the end, in either order, also as the tail of `split_at_mut(k)` walked
    /// whole, or cut off by `truncate(k)`; `mem::replace(&mut buf, ..)` and `mem::take` as
    /// resets), and a buffer of the largest batch whose first `m` entries are passed (`&buf[..m]`)
    /// after the real rows were copied into `buf[..k]` and `buf[k..m]` was set to S (by `fill` or
    /// by a loop `for i in k..m`), or `buf[..m]` was set to S before the copy. An index declared with `reads(P[IDX])` may be padded with 0. The
    /// null block is position 0 and the callee's `forbids_write` regions of P, except in a sanctioned
    /// writer of a region (`forbids_write(P[R], except(health_check))`): there R's positions are
    /// ordinary ones, statically in the function the `except` path names and at run time while it
    /// runs.
    ///
    /// ## Why it matters
    /// In a paged KV cache, block 0 is the null block owned by no request, and slot 0 is its first
    /// slot. A padding row mapped to 0 writes garbage (often NaN) into storage that every padded
    /// read then sees. The no-write sentinel exists so that kernels skip those rows.
    ///
    /// ## Example
    /// ```rust,ignore
    /// let mut slot_mapping = vec![0i64; num_tokens]; // dummy run: every row writes slot 0
    /// reshape_and_cache(&key, &mut key_cache, &slot_mapping);
    /// ```
    ///
    /// ## Use instead
    /// ```rust,ignore
    /// let slot_mapping = vec![PAD_SLOT_ID; num_tokens];
    /// reshape_and_cache(&key, &mut key_cache, &slot_mapping);
    /// ```
    ///
    /// ## Real case
    /// vLLM: a dummy run whose slot mapping stayed zero-filled wrote into null block 0; a later fix
    /// reset it to -1 but only after the attention metadata had been built from the stale zeros.
    pub static PAD_TO_NULL_BLOCK = "pad_to_null_block", Error, [Checker, Runtime], "padding entries of a write index point at the null block instead of the skip sentinel";
}
