declare_rule! {
    /// ## What it checks
    /// In a function with `reuses(PLACE, key(K1, K2, ...))`, every lookup on PLACE (`get`,
    /// `get_mut`, `entry`, `contains_key`, `insert`, `get_or_insert_with`, indexing, and a search
    /// of a cache kept as a list: `PLACE.iter().find(|e| ..)`, `position`, `any`, `find_map`,
    /// whose key is what the predicate compares) uses a key built from all of the declared
    /// components. A cache of caches (one map per adapter version of maps by prompt hash) is
    /// looked up by both keys: a lookup on what a lookup found (`PLACE.get(&v)?.get(&h)`,
    /// `.and_then(|m| m.get(&h))`, `let per = PLACE.get(&v)?; per.get(&h)`,
    /// `PLACE.entry(v).or_default().insert(h, kv)`; any entry or each of them, which is keyed by
    /// nothing, `PLACE.values().next()?.get(&h)`, `PLACE.first()?.get(&h)`, `for m in
    /// PLACE.values() { m.get(&h) }`)
    /// is keyed by the components of both, and the outer one alone is no finding. Keys held in local variables are followed to the value
    /// they hold at the lookup (a key changed on one branch covers only what every branch covers,
    /// and a key chosen by a `match` or `if`/`else` only what every branch that gives one builds),
    /// a name a pattern takes from a component (`if let Some(h) = h`, `let Req { hash } = r`, a
    /// `match` arm) is that component (a part of it taken apart by a tuple or struct pattern,
    /// `let (h, v) = ..`, only that part), a part of a key assigned after the key was built
    /// (`k.1 = 0;`, `k.adapter = 0;` of `let mut k = req.clone();`, `k.req.adapter = 0;`, a
    /// parameter reset in place, `mem::take(&mut k.adapter)`, `mem::replace`, a helper of the same
    /// file that assigns it: `normalize(&mut k)`, `k.clear_adapter()`,
    /// `req.clone().without_adapter()`) holds what was assigned, a key built up in place covers what was fed into it
    /// (`p.hash.hash(&mut hasher)`, `hasher.write_u32(v)`, `key.push_str(..)`, an array key
    /// stored element by element, `k[2] = heads`; a value whose type
    /// has a `Hash` impl written by hand in the same file feeds only the fields that impl reads:
    /// `req.hash(&mut hasher)` with an impl that hashes `self.tokens` alone forgets the adapter), and a key built by
    /// a helper of the same file covers what that helper builds it from (a `return None` of the
    /// helper gives no key: `let k = self.key_for(bs)?;` is what its other exits return). A
    /// cache behind a lock is looked up through its guard (`lock().unwrap()`, `read().ok()?`,
    /// `read().map_err(..)?`, a `match` that recovers a poisoned lock or returns, an awaited lock). A hit validated for a
    /// component counts as keyed by it: an entry stamped with the version it was built for and
    /// compared with it on the hit (`Some(e) if e.version == self.adapter_version`, `if e.version
    /// != self.adapter_version { return None; }`, `.filter(|e| e.version == self.adapter_version)`),
    /// and stored with the stamp (`insert(k, Entry { version: self.adapter_version, .. })`; a value
    /// only computed from the component is no stamp); on the paths where an entry was tested
    /// against the component or stored stamped with it, a later lookup of the same key is keyed
    /// by it too (`let fresh = map.get(&k).is_some_and(|e| e.0 == generation); if !fresh {
    /// map.insert(k, (generation, merged)); } map.get(&k)`), until the component or the key's
    /// locals change; the component may be compared through a
    /// local that holds it (`let v = self.adapter_version;`). So does a cache emptied whenever the
    /// component changes: on every path to the lookup, it was cleared (`clear()`, a new empty
    /// map, `mem::take`) or a stamp of the version it was filled under was seen equal to the
    /// component (`if self.filled_under != self.adapter_version { self.kv.clear(); .. }`), or
    /// the type keeps it so: a private field of `self` that the file writes only where it also
    /// empties the cache (`fn set_scale(&mut self, s: f32) { self.kernels.clear(); self.scale =
    /// s; }`; a `pub` field, or one written elsewhere without emptying it, is no such field). PLACE
    /// may be a `static` (a `LazyLock`/`OnceLock` of a locked map: `PLANS.lock().unwrap().get(..)`).
    ///
    /// A cache that holds one value and no key (a field or parameter of type `Option<T>`,
    /// `OnceCell<T>` or `OnceLock<T>`, behind a lock too, of a `T` that is no map) is looked up
    /// by every read that serves its value (`get_or_init`, `get_or_insert_with`, `get`,
    /// `as_ref`, `clone`, a pattern that takes the value apart: `if let Some((len, m)) =
    /// &self.last`). Such a lookup is keyed by the components the value's stamps are compared
    /// with before it is served (`if *len == seq_len`; a stamp that bounds the component, `if
    /// *len >= max_pos`, a table that grows, counts too, in a combinator as well: `filter(|(len,
    /// _)| *len >= n)`, `map_or(true, |(len, _)| *len < n)`; a staleness test joins its stamps
    /// with `||`, `len != n || heads != h`), or by a slot emptied whenever a
    /// component changed (`if self.len != seq_len { self.mask = None; .. }`, `take()`). A slot
    /// given a value built from the components holds their value on that path: reading it back
    /// serves it (`let stale = self.last.as_ref().map_or(true, |e| e.seq_len != seq_len); if
    /// stale { self.last = Some(Entry { seq_len, .. }); } &self.last.as_ref().unwrap().bias`,
    /// `is_some_and(|e| e.seq_len == seq_len)` likewise, and a `match` that answers the same
    /// question, `match &self.last { Some(e) => !e.fits(seq_len, heads), None => true }` or with
    /// the test in the filled arm's guard (`Some((len, _)) if *len == n => true, _ => false`),
    /// with a predicate method of the entry written out; a `matches!(..)` kept in a local, `let
    /// fresh = matches!(&self.last, Some((len, _)) if *len >= n); if !fresh { .. }`, as well). A read only tested (`is_none()`, a `match`
    /// whose arms give a `bool`) serves nothing. A loop that feeds each item of a collection into a hasher feeds the collection,
    /// however many items it has, also where the hasher's type is of the file (`h.write_u64(w as
    /// u64)` of `fn write_u64(&mut self, v: u64) { self.0 ^= v }`).
    ///
    /// ## Why it matters
    /// An entry is valid only for the inputs it was computed from. A key that leaves one out
    /// (the adapter version, the dtype, the device) serves a stale entry when that input changes.
    ///
    /// ## Example
    /// ```rust,ignore
    /// #[reuse::contract(reuses(self.kv, key(prompt.hash, self.adapter_version)))]
    /// fn prefill(&mut self, prompt: &Prompt) -> Kv {
    ///     if let Some(kv) = self.kv.get(&prompt.hash) { return kv.clone(); } // adapter_version missing
    ///     ...
    /// }
    /// ```
    ///
    /// ## Use instead
    /// ```rust,ignore
    /// let key = (prompt.hash, self.adapter_version);
    /// if let Some(kv) = self.kv.get(&key) { return kv.clone(); }
    /// ```
    ///
    /// ## Real case
    /// Stale KV caches under evolving adapters (CacheReforge): cached states reflect an earlier
    /// adapter version and distort the current model's outputs.
    pub static STALE_KEY = "stale_key", Error, [Checker], "a cache lookup leaves out a declared key component";
}
