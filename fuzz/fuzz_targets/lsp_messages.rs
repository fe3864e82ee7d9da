//! Arbitrary bytes on the language server's stdin, after an `initialize` on a small workspace (a
//! contract and a caller with a finding) and a `didOpen` of the caller: the server must never
//! panic, hang or overflow, and must end at `exit` or at the end of input. The workspace is small
//! so that each input costs little: the fuzzer's bytes, not the prelude, are what gets checked.
#![no_main]

use std::path::PathBuf;
use std::sync::OnceLock;

use libfuzzer_sys::fuzz_target;

const LIB: &str = "pub mod user;\n\npub const PAD_SLOT_ID: i64 = -1;\n\n#[reuse::contract(writes(cache[slots], skip = PAD_SLOT_ID))]\npub fn write(cache: &mut [f32], slots: &[i64]) {}\n";
/// `src/user.rs`; the seeds in `fuzz/seeds/lsp_messages` edit and hover it by position.
const USER: &str = "use crate::*;\n\npub fn f(c: &mut [f32], n: usize) {\n    let s = vec![0; n];\n    write(c, &s);\n}\n";

/// The workspace, written once per process at a fixed path (the seeds name its URIs).
fn workspace() -> &'static PathBuf {
    static DIR: OnceLock<PathBuf> = OnceLock::new();
    DIR.get_or_init(|| {
        let dir = PathBuf::from("/tmp/reuse-check-fuzz-lsp");
        std::fs::create_dir_all(dir.join("src")).unwrap();
        std::fs::write(dir.join("src/lib.rs"), LIB).unwrap();
        std::fs::write(dir.join("src/user.rs"), USER).unwrap();
        std::fs::canonicalize(&dir).unwrap()
    })
}

fn frame(body: &str) -> Vec<u8> {
    format!("Content-Length: {}\r\n\r\n{body}", body.len()).into_bytes()
}

/// `initialize` on the workspace, `initialized`, `didOpen` of `src/user.rs`.
fn prelude() -> &'static [u8] {
    static BYTES: OnceLock<Vec<u8>> = OnceLock::new();
    BYTES.get_or_init(|| {
        let root = workspace();
        let root_uri = format!("file://{}", root.display());
        let user_uri = format!("{root_uri}/src/user.rs");
        let init = format!(r#"{{"jsonrpc":"2.0","id":0,"method":"initialize","params":{{"rootUri":"{root_uri}","capabilities":{{}}}}}}"#);
        let open = did_open(&user_uri, USER);
        let mut v = frame(&init);
        v.extend(frame(r#"{"jsonrpc":"2.0","method":"initialized","params":{}}"#));
        v.extend(frame(&open));
        v
    })
}

/// A `didOpen` message (JSON-escaped by hand: the fuzz crate has no serde_json of its own).
fn did_open(uri: &str, text: &str) -> String {
    let mut escaped = String::new();
    for c in text.chars() {
        match c {
            '"' => escaped.push_str("\\\""),
            '\\' => escaped.push_str("\\\\"),
            '\n' => escaped.push_str("\\n"),
            '\r' => escaped.push_str("\\r"),
            '\t' => escaped.push_str("\\t"),
            c if (c as u32) < 0x20 => escaped.push_str(&format!("\\u{:04x}", c as u32)),
            c => escaped.push(c),
        }
    }
    format!(r#"{{"jsonrpc":"2.0","method":"textDocument/didOpen","params":{{"textDocument":{{"uri":"{uri}","languageId":"rust","version":1,"text":"{escaped}"}}}}}}"#)
}

fuzz_target!(|data: &[u8]| {
    let mut input = prelude().to_vec();
    input.extend_from_slice(data);
    let _ = reuse_check::lsp::serve_bytes(input);
});
