//! The server driven in-process over an in-memory connection, on a copy of the paged-KV fixture.

use std::path::{Path, PathBuf};
use std::thread::JoinHandle;
use std::time::Duration;

use lsp_server::{Connection, Message, Notification, Request, RequestId, Response};
use lsp_types::{PublishDiagnosticsParams, Url};
use serde_json::{json, Value};

use super::{serve, Outcome};

const LIB: &str = include_str!("../../../fixtures/paged-kv/src/lib.rs");
const BUGGY: &str = include_str!("../../../fixtures/paged-kv/src/buggy.rs");
const CORRECT: &str = include_str!("../../../fixtures/paged-kv/src/correct.rs");
const TIMEOUT: Duration = Duration::from_secs(60);

/// A copy of the fixture in a plain directory (no Cargo.toml: no `cargo metadata` in unit tests).
struct Fixture(PathBuf);

impl Fixture {
    fn new(name: &str) -> Fixture {
        let dir = std::env::temp_dir().join(format!("reuse-check-lsp-{name}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(dir.join("src")).unwrap();
        std::fs::write(dir.join("src/lib.rs"), LIB).unwrap();
        std::fs::write(dir.join("src/buggy.rs"), BUGGY).unwrap();
        std::fs::write(dir.join("src/correct.rs"), CORRECT).unwrap();
        Fixture(std::fs::canonicalize(&dir).unwrap())
    }
    fn uri(&self, rel: &str) -> Url {
        Url::from_file_path(self.0.join(rel)).unwrap()
    }
}

impl Drop for Fixture {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

struct Client {
    conn: Connection,
    server: Option<JoinHandle<Outcome>>,
    next_id: i32,
    /// Notifications received while waiting for a response.
    pending: Vec<Notification>,
}

impl Client {
    /// A client whose messages are queued before the server starts (when `initialize` is false,
    /// the caller sends them and calls [`Client::start`]).
    fn new() -> (Client, Connection) {
        let (server, client) = Connection::memory();
        (Client { conn: client, server: None, next_id: 0, pending: Vec::new() }, server)
    }

    fn start(&mut self, server: Connection) {
        self.server = Some(std::thread::spawn(move || serve(&server)));
    }

    /// Started and initialized on `root`.
    fn initialized(root: &Path) -> Client {
        let (mut c, server) = Client::new();
        c.start(server);
        let resp = c.request("initialize", json!({ "processId": null, "rootUri": Url::from_file_path(root).unwrap(), "capabilities": {} }));
        assert!(resp.error.is_none(), "{resp:?}");
        c.notify("initialized", json!({}));
        c
    }

    fn notify(&self, method: &str, params: Value) {
        self.conn.sender.send(Notification::new(method.into(), params).into()).unwrap();
    }

    fn send_request(&mut self, method: &str, params: Value) -> RequestId {
        self.next_id += 1;
        let id = RequestId::from(self.next_id);
        self.conn.sender.send(Request::new(id.clone(), method.into(), params).into()).unwrap();
        id
    }

    fn request(&mut self, method: &str, params: Value) -> Response {
        let id = self.send_request(method, params);
        self.response(id)
    }

    fn response(&mut self, id: RequestId) -> Response {
        loop {
            match self.conn.receiver.recv_timeout(TIMEOUT).expect("a response in time") {
                Message::Response(r) if r.id == id => return r,
                Message::Notification(n) => self.pending.push(n),
                _ => {}
            }
        }
    }

    /// The next diagnostics published for `uri`.
    fn diagnostics(&mut self, uri: &Url) -> PublishDiagnosticsParams {
        loop {
            let n = match self.pending.iter().position(|n| n.method == "textDocument/publishDiagnostics") {
                Some(i) => self.pending.remove(i),
                None => match self.conn.receiver.recv_timeout(TIMEOUT).expect("diagnostics in time") {
                    Message::Notification(n) => n,
                    _ => continue,
                },
            };
            if n.method != "textDocument/publishDiagnostics" {
                self.pending.push(n);
                continue;
            }
            let p: PublishDiagnosticsParams = serde_json::from_value(n.params).unwrap();
            if &p.uri == uri {
                return p;
            }
        }
    }

    fn open(&self, uri: &Url, text: &str) {
        self.notify("textDocument/didOpen", json!({ "textDocument": { "uri": uri, "languageId": "rust", "version": 1, "text": text } }));
    }

    fn change(&self, uri: &Url, version: i32, text: &str) {
        self.notify("textDocument/didChange", json!({ "textDocument": { "uri": uri, "version": version }, "contentChanges": [{ "text": text }] }));
    }

    fn shutdown(mut self) -> Outcome {
        let resp = self.request("shutdown", Value::Null);
        assert!(resp.error.is_none());
        self.notify("exit", Value::Null);
        self.server.take().unwrap().join().unwrap()
    }
}

/// `(0-based line, rule)` of every `//~ rule` marker.
fn markers(text: &str) -> Vec<(u32, String)> {
    let mut v: Vec<(u32, String)> = text
        .lines()
        .enumerate()
        .filter(|(_, l)| !l.trim_start().starts_with("//"))
        .filter_map(|(i, l)| l.split_once("//~").map(|(_, r)| (i as u32, r.trim().to_string())))
        .collect();
    v.sort();
    v
}

fn found(p: &PublishDiagnosticsParams) -> Vec<(u32, String)> {
    let mut v: Vec<(u32, String)> = p
        .diagnostics
        .iter()
        .map(|d| {
            let code = match &d.code {
                Some(lsp_types::NumberOrString::String(s)) => s.trim_start_matches("reuse::").to_string(),
                other => panic!("code {other:?}"),
            };
            (d.range.start.line, code)
        })
        .collect();
    v.sort();
    v
}

#[test]
fn findings_are_published_on_open_and_cleared_by_a_fix() {
    let fx = Fixture::new("open");
    let mut c = Client::initialized(&fx.0);
    let uri = fx.uri("src/buggy.rs");
    c.open(&uri, BUGGY);
    let p = c.diagnostics(&uri);
    assert_eq!(p.version, Some(1));
    assert_eq!(found(&p), markers(BUGGY));
    let d = &p.diagnostics[0];
    assert_eq!(d.source.as_deref(), Some("reuse-check"));
    let related = d.related_information.as_ref().expect("the contract clause as related information");
    assert!(related.iter().any(|r| r.location.uri == fx.uri("src/lib.rs")), "{related:?}");

    c.change(&uri, 2, CORRECT);
    let p = c.diagnostics(&uri);
    assert_eq!(p.version, Some(2));
    assert!(p.diagnostics.is_empty(), "{:?}", p.diagnostics);
    assert_eq!(c.shutdown(), Outcome { shutdown: true, exit_without_shutdown: false });
}

#[test]
fn edits_queued_during_a_check_cost_one_check_at_the_latest_version() {
    let fx = Fixture::new("coalesce");
    let (mut c, server) = Client::new();
    let id = c.send_request("initialize", json!({ "rootUri": Url::from_file_path(&fx.0).unwrap(), "capabilities": {} }));
    c.notify("initialized", json!({}));
    let uri = fx.uri("src/buggy.rs");
    c.open(&uri, BUGGY);
    // Incremental edits: type `x` 40 times at the start of the last line, then delete them.
    let last_line = BUGGY.lines().count() as u32 - 1;
    for v in 0..40 {
        let at = json!({ "line": last_line, "character": 0 });
        c.notify(
            "textDocument/didChange",
            json!({ "textDocument": { "uri": uri, "version": 2 + v }, "contentChanges": [{ "range": { "start": at, "end": at }, "text": "x" }] }),
        );
    }
    let start = json!({ "line": last_line, "character": 0 });
    let end = json!({ "line": last_line, "character": 40 });
    c.notify("textDocument/didChange", json!({ "textDocument": { "uri": uri, "version": 42 }, "contentChanges": [{ "range": { "start": start, "end": end }, "text": "" }] }));
    c.start(server);
    c.response(id);
    let p = c.diagnostics(&uri);
    assert_eq!(p.version, Some(42), "only the latest version is checked");
    assert_eq!(found(&p), markers(BUGGY));
    assert!(c.pending.iter().all(|n| n.method != "textDocument/publishDiagnostics"));
    c.shutdown();
}

#[test]
fn positions_count_utf16_units_on_non_ascii_lines() {
    let fx = Fixture::new("utf16");
    let mut c = Client::initialized(&fx.0);
    let uri = fx.uri("src/buggy.rs");
    let prefix = "        let _label = \"é😀漢\"; ";
    let text = BUGGY.replace("        let slot_mapping = vec![0; num_tokens];", &format!("{prefix}let slot_mapping = vec![0; num_tokens];"));
    c.open(&uri, &text);
    let p = c.diagnostics(&uri);
    let line = text.lines().position(|l| l.contains("_label")).unwrap() as u32;
    let d = p.diagnostics.iter().find(|d| d.range.start.line == line).expect("the finding on the non-ASCII line");
    let zero_col = format!("{prefix}let slot_mapping = vec![").encode_utf16().count() as u32;
    assert_eq!((d.range.start.character, d.range.end.character), (zero_col, zero_col + 1), "{d:?}");
    // The byte column would be 7 more (é: +1, 😀: +2, 漢: +2... in bytes vs units).
    assert_ne!(zero_col as usize, format!("{prefix}let slot_mapping = vec![").len());
    c.shutdown();
}

#[test]
fn hovers_show_the_contract_of_a_call_and_the_docs_of_a_clause() {
    let fx = Fixture::new("hover");
    let mut c = Client::initialized(&fx.0);
    let uri = fx.uri("src/buggy.rs");
    c.open(&uri, BUGGY);
    c.diagnostics(&uri);
    let (line, l) = BUGGY.lines().enumerate().find(|(_, l)| l.trim_start().starts_with("reshape_and_cache(")).unwrap();
    let character = l.find("reshape").unwrap() + 3;
    let resp = c.request("textDocument/hover", json!({ "textDocument": { "uri": uri }, "position": { "line": line, "character": character } }));
    let value = resp.result.expect("a hover")["contents"]["value"].as_str().unwrap().to_string();
    assert!(value.contains("reshape_and_cache"), "{value}");
    assert!(value.contains("writes(key_cache[slot_mapping], skip = PAD_SLOT_ID)"), "{value}");
    assert!(value.contains("`pad_to_null_block`"), "{value}");

    let lib = fx.uri("src/lib.rs");
    c.open(&lib, LIB);
    c.diagnostics(&lib);
    let (line, l) = LIB.lines().enumerate().find(|(_, l)| l.trim_start().starts_with("writes(")).unwrap();
    let character = l.find("skip").unwrap();
    let resp = c.request("textDocument/hover", json!({ "textDocument": { "uri": lib }, "position": { "line": line, "character": character } }));
    let value = resp.result.expect("a hover")["contents"]["value"].as_str().unwrap().to_string();
    assert!(value.contains("### pad_to_null_block"), "{value}");
    assert!(value.contains("null block"), "{value}");

    // Nothing under the cursor: a null result, not an error.
    let resp = c.request("textDocument/hover", json!({ "textDocument": { "uri": uri }, "position": { "line": 0, "character": 0 } }));
    assert!(resp.error.is_none() && resp.result == Some(Value::Null), "{resp:?}");
    c.shutdown();
}

/// Applies one TextEdit (as JSON) to a text.
fn apply(text: &str, edit: &Value) -> String {
    let pos = |p: &Value| lsp_types::Position { line: p["line"].as_u64().unwrap() as u32, character: p["character"].as_u64().unwrap() as u32 };
    let start = super::convert::offset_in_text(text, pos(&edit["range"]["start"]));
    let end = super::convert::offset_in_text(text, pos(&edit["range"]["end"]));
    format!("{}{}{}", &text[..start], edit["newText"].as_str().unwrap(), &text[end..])
}

#[test]
fn code_actions_replace_the_zero_by_the_sentinel_or_insert_a_suppression() {
    let fx = Fixture::new("actions");
    let mut c = Client::initialized(&fx.0);
    let uri = fx.uri("src/buggy.rs");
    c.open(&uri, BUGGY);
    let p = c.diagnostics(&uri);
    let line = BUGGY.lines().position(|l| l.contains("let slot_mapping = vec![0; num_tokens];")).unwrap() as u32;
    let d = p.diagnostics.iter().find(|d| d.range.start.line == line).unwrap().clone();
    let resp = c.request(
        "textDocument/codeAction",
        json!({ "textDocument": { "uri": uri }, "range": d.range, "context": { "diagnostics": [d] } }),
    );
    let actions = resp.result.unwrap();
    let actions = actions.as_array().unwrap();
    let titles: Vec<&str> = actions.iter().map(|a| a["title"].as_str().unwrap()).collect();
    assert_eq!(titles, ["Replace with PAD_SLOT_ID (pad_to_null_block)", "Suppress `pad_to_null_block` on this line"]);
    assert_eq!(actions[0]["isPreferred"], json!(true));

    let edit = &actions[0]["edit"]["changes"][uri.as_str()][0];
    let fixed = apply(BUGGY, edit);
    assert!(fixed.contains("let slot_mapping = vec![PAD_SLOT_ID; num_tokens];"));
    c.change(&uri, 2, &fixed);
    let after = c.diagnostics(&uri);
    assert!(!found(&after).contains(&(line, "pad_to_null_block".into())), "{:?}", found(&after));

    let edit = &actions[1]["edit"]["changes"][uri.as_str()][0];
    let suppressed = apply(BUGGY, edit);
    let inserted = suppressed.lines().nth(line as usize).unwrap();
    assert_eq!(inserted, "        // reuse-check: allow(pad_to_null_block) <reason>");
    c.change(&uri, 3, &suppressed);
    let after = c.diagnostics(&uri);
    assert_eq!(found(&after).len(), markers(BUGGY).len() - 1, "{:?}", found(&after));
    c.shutdown();
}

#[test]
fn bad_requests_get_errors_and_the_server_goes_on() {
    let fx = Fixture::new("robust");
    let (mut c, server) = Client::new();
    c.start(server);
    let early = c.request("textDocument/hover", json!({}));
    assert_eq!(early.error.unwrap().code, -32002);
    let resp = c.request("initialize", json!({ "rootUri": Url::from_file_path(&fx.0).unwrap(), "capabilities": {} }));
    assert!(resp.result.unwrap()["capabilities"]["hoverProvider"] == json!(true));
    assert_eq!(c.request("initialize", json!({})).error.unwrap().code, -32600);
    assert_eq!(c.request("no/such/method", json!({})).error.unwrap().code, -32601);
    assert_eq!(c.request("textDocument/hover", json!({ "bogus": 1 })).error.unwrap().code, -32602);
    c.notify("no/such/notification", json!({}));
    c.notify("textDocument/didOpen", json!({ "nonsense": true }));
    c.notify("textDocument/didChange", json!({ "textDocument": { "uri": "file:///not/open.rs", "version": 3 }, "contentChanges": [] }));
    // Still serving.
    let uri = fx.uri("src/buggy.rs");
    c.open(&uri, BUGGY);
    assert_eq!(found(&c.diagnostics(&uri)), markers(BUGGY));
    // Garbage source never breaks a check.
    c.change(&uri, 2, "fn f( { \u{0} é😀 #[reuse::contract(writes(");
    let p = c.diagnostics(&uri);
    assert!(p.diagnostics.iter().any(|d| d.code == Some(lsp_types::NumberOrString::String("reuse::parse_error".into()))), "{p:?}");
    // `exit` without `shutdown` ends the loop and says so.
    c.notify("exit", Value::Null);
    assert_eq!(c.server.take().unwrap().join().unwrap(), Outcome { shutdown: false, exit_without_shutdown: true });
}

#[test]
fn a_client_that_goes_away_without_shutdown_ends_the_server() {
    let fx = Fixture::new("gone");
    let mut c = Client::initialized(&fx.0);
    let uri = fx.uri("src/buggy.rs");
    c.open(&uri, BUGGY);
    c.diagnostics(&uri);
    let server = c.server.take().unwrap();
    drop(c);
    assert_eq!(server.join().unwrap(), Outcome { shutdown: false, exit_without_shutdown: false });
}

#[test]
fn an_item_checked_alone_and_a_contract_edited_elsewhere_agree() {
    let fx = Fixture::new("incremental");
    let mut c = Client::initialized(&fx.0);
    // The buggy runner without its own contract: a file that declares nothing.
    let user_text = BUGGY.replace("#[reuse::contract(forbids_write(key_cache[0..BLOCK_SIZE]))]\n", "");
    let user = fx.uri("src/buggy.rs");
    c.open(&user, &user_text);
    let pads = |p: &PublishDiagnosticsParams| found(p).iter().filter(|(_, r)| r == "pad_to_null_block").count();
    let first = c.diagnostics(&user);
    assert_eq!(pads(&first), 5);
    // One item edited: a sixth finding, found by re-checking that item.
    let edited = user_text.replace("vec![PAD_SLOT_ID; key.len()]", "vec![0; key.len()]");
    c.change(&user, 2, &edited);
    let second = c.diagnostics(&user);
    assert_eq!(second.version, Some(2));
    assert_eq!(pads(&second), 6, "{:?}", found(&second));
    // The contract loses its sentinel: no pad findings; it gets it back: all six, for the edited text.
    let lib = fx.uri("src/lib.rs");
    c.open(&lib, LIB);
    // The declaring file's diagnostics; opened as it is on disk, it changes nothing the other
    // documents depend on. Edited, it does: they are checked again.
    c.diagnostics(&lib);
    c.change(&lib, 2, &LIB.replace(", skip = PAD_SLOT_ID", ""));
    assert_eq!(pads(&c.diagnostics(&user)), 0);
    c.change(&lib, 3, LIB);
    assert_eq!(pads(&c.diagnostics(&user)), 6);
    c.shutdown();
}

/// One framed message, as a client writes it.
fn frame(msg: &Value) -> String {
    let body = msg.to_string();
    format!("Content-Length: {}\r\n\r\n{body}", body.len())
}

/// The JSON-RPC messages in what the server wrote.
fn frames(out: &[u8]) -> Vec<Value> {
    let text = String::from_utf8_lossy(out);
    let mut rest: &str = &text;
    let mut v = Vec::new();
    while let Some(at) = rest.find("Content-Length: ") {
        let after = &rest[at + "Content-Length: ".len()..];
        let (len, tail) = after.split_once("\r\n\r\n").unwrap();
        let len: usize = len.trim().parse().unwrap();
        v.push(serde_json::from_str(&tail[..len]).unwrap());
        rest = &tail[len..];
    }
    v
}

/// Issue 9: a body without `Content-Length`, or a `Content-Length` one byte too large, used to
/// leave the server deaf (0 of the next 20 requests answered, `exit` lost).
#[test]
fn after_a_bad_frame_twenty_requests_are_answered_and_exit_works() {
    let fx = Fixture::new("resync");
    let init = frame(&json!({ "jsonrpc": "2.0", "id": 0, "method": "initialize", "params": { "rootUri": Url::from_file_path(&fx.0).unwrap(), "capabilities": {} } }));
    let hover = |id: i32| frame(&json!({ "jsonrpc": "2.0", "id": id, "method": "textDocument/hover", "params": { "textDocument": { "uri": fx.uri("src/buggy.rs") }, "position": { "line": 0, "character": 0 } } }));
    let tail = frame(&json!({ "jsonrpc": "2.0", "id": 99, "method": "shutdown" })) + &frame(&json!({ "jsonrpc": "2.0", "method": "exit" }));
    let one_too_long = {
        let body = json!({ "jsonrpc": "2.0", "method": "initialized", "params": {} }).to_string();
        format!("Content-Length: {}\r\n\r\n{body}", body.len() + 1)
    };
    for bad in ["Content-Type: application/json\r\n\r\n{}".to_string(), one_too_long] {
        let mut input = init.clone() + &bad;
        for id in 1..=20 {
            input += &hover(id);
        }
        input += &tail;
        let (outcome, out) = super::serve_bytes(input.into_bytes());
        let answered: Vec<i64> = frames(&out).iter().filter(|m| m.get("method").is_none()).filter_map(|m| m["id"].as_i64()).collect();
        let want: Vec<i64> = std::iter::once(0).chain(1..=20).chain([99]).collect();
        assert_eq!(answered, want, "after {bad:?}");
        assert_eq!(outcome, Outcome { shutdown: true, exit_without_shutdown: false }, "after {bad:?}");
    }
}

/// `depth` nested `if`s in a function that calls a contracted function.
fn nested_ifs(depth: usize) -> String {
    format!("use crate::*;\npub fn deep(c: bool) {{\n{}{}\n}}\n", "if c { ".repeat(depth), "} ".repeat(depth))
}

/// Issue 5 (editor part): text nested deeper than a default stack allows (1,500 `if`s, a
/// 30,000-link method chain) is checked on the server's large stack; the next request is answered.
#[test]
fn deeply_nested_text_in_a_did_change_does_not_kill_the_server() {
    let fx = Fixture::new("deep-change");
    let mut c = Client::initialized(&fx.0);
    let uri = fx.uri("src/buggy.rs");
    c.open(&uri, BUGGY);
    c.diagnostics(&uri);
    let chain = format!("pub fn chain(v: Vec<u8>) {{\n    v{};\n}}\n", ".clone()".repeat(30_000));
    for (version, text) in [(2, nested_ifs(1_500)), (3, chain)] {
        c.change(&uri, version, &text);
        let p = c.diagnostics(&uri);
        assert_eq!(p.version, Some(version));
        let resp = c.request("textDocument/hover", json!({ "textDocument": { "uri": uri }, "position": { "line": 1, "character": 4 } }));
        assert!(resp.error.is_none(), "{resp:?}");
    }
    c.shutdown();
}

/// Issue 5 (editor part): a deeply nested file that declares a contract is parsed while the
/// workspace is opened, before `initialize` is answered.
#[test]
fn initialize_is_answered_when_the_workspace_holds_a_deeply_nested_file() {
    let fx = Fixture::new("deep-open");
    let deep = format!("#[reuse::contract(writes(c[s], skip = -1))]\npub fn w(c: &mut [u8], s: &[i64]) {{}}\n{}", nested_ifs(1_500));
    std::fs::write(fx.0.join("src/deep.rs"), deep).unwrap();
    let c = Client::initialized(&fx.0);
    c.shutdown();
}

/// Issue 12: a lone `\r` in a comment is a line end for the client. Diagnostics and the client's
/// incremental edits must count it too.
#[test]
fn a_lone_carriage_return_in_a_comment_shifts_neither_diagnostics_nor_edits() {
    let fx = Fixture::new("lone-cr");
    let mut c = Client::initialized(&fx.0);
    let uri = fx.uri("src/buggy.rs");
    let text = format!("// one\rtwo (a lone CR: two lines for the editor, one for rustc)\n{BUGGY}");
    c.open(&uri, &text);
    // As the client counts lines: split at `\r\n`, `\n` and a lone `\r`.
    let editor_lines: Vec<&str> = text.split("\r\n").flat_map(|l| l.split('\n')).flat_map(|l| l.split('\r')).collect();
    let want: Vec<(u32, String)> = markers(BUGGY).into_iter().map(|(l, r)| (l + 2, r)).collect();
    assert_eq!(found(&c.diagnostics(&uri)), want);
    // The client replaces the `0` of the first zero-filled slot mapping, at its own position.
    let line = editor_lines.iter().position(|l| l.contains("let slot_mapping = vec![0; num_tokens];")).unwrap();
    let character = editor_lines[line].find("vec![0").unwrap() + 5;
    let range = json!({ "start": { "line": line, "character": character }, "end": { "line": line, "character": character + 1 } });
    c.notify("textDocument/didChange", json!({ "textDocument": { "uri": uri, "version": 2 }, "contentChanges": [{ "range": range, "text": "PAD_SLOT_ID" }] }));
    let after = found(&c.diagnostics(&uri));
    assert!(!after.contains(&(line as u32, "pad_to_null_block".into())), "{after:?}");
    assert_eq!(after.len(), want.len() - 1, "{after:?}");
    c.shutdown();
}

/// Issue 10: a committed `x.rs -> /dev/stdin` reported as created made the server read its own
/// input and hang. Only regular files inside the workspace are read; the others are reported.
#[cfg(unix)]
#[test]
fn only_regular_files_inside_the_workspace_are_read_when_the_client_reports_a_change() {
    use std::os::unix::fs::symlink;
    let fx = Fixture::new("links");
    let outside = Fixture::new("links-outside");
    let contract = |name: &str| format!("#[reuse::contract(writes(c[s], skip = -1))]\npub fn {name}(c: &mut [u8], s: &[i64]) {{}}\n");
    std::fs::write(outside.0.join("src/secret.rs"), contract("outside_write")).unwrap();
    symlink("/dev/stdin", fx.0.join("src/stdin.rs")).unwrap();
    symlink(outside.0.join("src/secret.rs"), fx.0.join("src/outside.rs")).unwrap();
    let fifo = fx.0.join("src/fifo.rs");
    let made = std::process::Command::new("mkfifo").arg(&fifo).status();
    let mut c = Client::initialized(&fx.0);
    std::fs::write(fx.0.join("src/inside.rs"), contract("inside_write")).unwrap();
    let mut names = vec!["stdin.rs", "outside.rs", "inside.rs"];
    if made.is_ok_and(|s| s.success()) {
        names.push("fifo.rs");
    }
    let changes: Vec<Value> = names.iter().map(|n| json!({ "uri": fx.uri(&format!("src/{n}")), "type": 1 })).collect();
    c.notify("workspace/didChangeWatchedFiles", json!({ "changes": changes }));
    // The server still answers, and says which files it did not read.
    let uri = fx.uri("src/user.rs");
    let user = "use crate::*;\npub fn f(c: &mut [u8], s: &[i64]) {\n    inside_write(c, s);\n    outside_write(c, s);\n}\n";
    c.open(&uri, user);
    c.diagnostics(&uri);
    let hover = |c: &mut Client, line: u32| {
        let resp = c.request("textDocument/hover", json!({ "textDocument": { "uri": uri }, "position": { "line": line, "character": 6 } }));
        assert!(resp.error.is_none(), "{resp:?}");
        resp.result.unwrap()
    };
    assert!(hover(&mut c, 2).to_string().contains("inside_write"), "a regular file inside the workspace is read");
    assert_eq!(hover(&mut c, 3), Value::Null, "a link out of the workspace is not followed");
    let logged: Vec<String> = c.pending.iter().filter(|n| n.method == "window/logMessage").map(|n| n.params["message"].as_str().unwrap().to_string()).collect();
    for n in names.iter().filter(|n| **n != "inside.rs") {
        assert!(logged.iter().any(|m| m.contains(n)), "{n} is reported: {logged:?}");
    }
    c.shutdown();
}

/// Issue 11, as the editor saw it: the finding through `self.kv` (a field whose type is another
/// item's) is published on open and must still be there after a blank line is typed inside the
/// method; the `(line N)` of a later finding moves with the edit.
#[test]
fn a_blank_line_typed_in_a_method_keeps_its_findings_and_moves_line_numbers() {
    const LIB: &str = include_str!("../../../semantic/testdata/editor-lib.rs.txt");
    const USER: &str = include_str!("../../../semantic/testdata/editor-user.rs.txt");
    let fx = Fixture::new("field-types");
    std::fs::write(fx.0.join("src/lib.rs"), LIB).unwrap();
    std::fs::write(fx.0.join("src/user.rs"), USER).unwrap();
    let mut c = Client::initialized(&fx.0);
    let uri = fx.uri("src/user.rs");
    c.open(&uri, USER);
    let rules = |p: &PublishDiagnosticsParams| found(p).into_iter().map(|(_, r)| r).collect::<Vec<_>>();
    let opened = c.diagnostics(&uri);
    assert_eq!(rules(&opened), ["pad_to_null_block", "use_after_donate", "use_after_donate"]);
    let line = USER.lines().position(|l| l.contains("self.kv.write(&slots);")).unwrap();
    let at = json!({ "line": line, "character": 0 });
    c.notify("textDocument/didChange", json!({ "textDocument": { "uri": uri, "version": 2 }, "contentChanges": [{ "range": { "start": at, "end": at }, "text": "\n" }] }));
    let edited = c.diagnostics(&uri);
    assert_eq!(edited.version, Some(2));
    assert_eq!(rules(&edited), ["pad_to_null_block", "use_after_donate", "use_after_donate"]);
    let last = |p: &PublishDiagnosticsParams| p.diagnostics.last().unwrap().message.clone();
    assert!(last(&opened).contains("(line 33)") && last(&edited).contains("(line 34)"), "{} / {}", last(&opened), last(&edited));
    c.shutdown();
}

/// An edited re-export, in a file that declares nothing, changes what calls in other files
/// resolve to: the other open documents are checked again against the new index.
#[test]
fn an_edited_reexport_rechecks_the_other_open_documents() {
    let fx = Fixture::new("reexport");
    std::fs::write(fx.0.join("src/lib.rs"), LIB.replace("pub mod correct;\n", "pub mod correct;\npub mod kv;\npub mod user;\n")).unwrap();
    let kv = "pub use crate::reshape_and_cache as write_rows;\n";
    let user = "use crate::kv::write_rows;\nuse crate::Row;\n\npub fn fill(key: &[Row], cache: &mut [Row], n: usize) {\n    let slots = vec![0; n];\n    write_rows(key, cache, &slots);\n}\n";
    std::fs::write(fx.0.join("src/kv.rs"), kv).unwrap();
    std::fs::write(fx.0.join("src/user.rs"), user).unwrap();
    let mut c = Client::initialized(&fx.0);
    let (user_uri, kv_uri) = (fx.uri("src/user.rs"), fx.uri("src/kv.rs"));
    let pads = |p: &PublishDiagnosticsParams| found(p).iter().filter(|(_, r)| r == "pad_to_null_block").count();
    c.open(&user_uri, user);
    assert_eq!(pads(&c.diagnostics(&user_uri)), 1, "the call resolves through the re-export");
    c.open(&kv_uri, kv);
    c.diagnostics(&kv_uri);
    c.change(&kv_uri, 2, "pub use crate::paged_attention as write_rows;\n");
    c.diagnostics(&kv_uri);
    assert_eq!(pads(&c.diagnostics(&user_uri)), 0, "the name now stands for a function that only reads");
    c.change(&kv_uri, 3, kv);
    c.diagnostics(&kv_uri);
    assert_eq!(pads(&c.diagnostics(&user_uri)), 1);
    c.shutdown();
}
