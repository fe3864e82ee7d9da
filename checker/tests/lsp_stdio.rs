//! The `reuse-check lsp` binary over real pipes: what the in-process tests cannot show (the
//! server's own stdin, the stack of the binary's threads).

use std::io::{BufRead, BufReader, Read, Write};
use std::path::{Path, PathBuf};
use std::process::{Child, ChildStdin, Command, Stdio};
use std::sync::mpsc::{channel, Receiver};
use std::time::Duration;

use serde_json::{json, Value};

const TIMEOUT: Duration = Duration::from_secs(60);

struct Server {
    child: Child,
    stdin: ChildStdin,
    messages: Receiver<Value>,
}

impl Server {
    fn start(root: &Path) -> Server {
        let mut child = Command::new(env!("CARGO_BIN_EXE_reuse-check"))
            .arg("lsp")
            .current_dir(root)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .expect("start reuse-check lsp");
        let stdin = child.stdin.take().unwrap();
        let mut stdout = BufReader::new(child.stdout.take().unwrap());
        let (tx, messages) = channel();
        std::thread::spawn(move || loop {
            let mut len = 0usize;
            loop {
                let mut line = String::new();
                if stdout.read_line(&mut line).unwrap_or(0) == 0 {
                    return;
                }
                let line = line.trim();
                if line.is_empty() {
                    break;
                }
                if let Some(v) = line.strip_prefix("Content-Length: ") {
                    len = v.parse().unwrap();
                }
            }
            let mut body = vec![0; len];
            if stdout.read_exact(&mut body).is_err() || tx.send(serde_json::from_slice(&body).unwrap()).is_err() {
                return;
            }
        });
        let mut s = Server { child, stdin, messages };
        s.send(&json!({ "jsonrpc": "2.0", "id": 0, "method": "initialize", "params": { "rootUri": url(root), "capabilities": {} } }));
        s.response(0);
        s.send(&json!({ "jsonrpc": "2.0", "method": "initialized", "params": {} }));
        s
    }

    fn send(&mut self, msg: &Value) {
        let body = msg.to_string();
        self.raw(&format!("Content-Length: {}\r\n\r\n{body}", body.len()));
    }

    fn raw(&mut self, bytes: &str) {
        self.stdin.write_all(bytes.as_bytes()).unwrap();
        self.stdin.flush().unwrap();
    }

    fn response(&mut self, id: i64) -> Value {
        loop {
            let m = self.messages.recv_timeout(TIMEOUT).unwrap_or_else(|_| panic!("no answer to request {id} in time"));
            if m.get("method").is_none() && m["id"] == json!(id) {
                return m;
            }
        }
    }

    fn hover(&mut self, id: i64, uri: &str) -> Value {
        self.send(&json!({ "jsonrpc": "2.0", "id": id, "method": "textDocument/hover", "params": { "textDocument": { "uri": uri }, "position": { "line": 1, "character": 4 } } }));
        self.response(id)
    }

    /// `shutdown`, `exit`, and the exit status.
    fn stop(mut self) -> i32 {
        self.send(&json!({ "jsonrpc": "2.0", "id": 999, "method": "shutdown" }));
        self.response(999);
        self.send(&json!({ "jsonrpc": "2.0", "method": "exit" }));
        let deadline = std::time::Instant::now() + TIMEOUT;
        loop {
            if let Some(status) = self.child.try_wait().unwrap() {
                return status.code().unwrap_or(-1);
            }
            assert!(std::time::Instant::now() < deadline, "the server did not exit");
            std::thread::sleep(Duration::from_millis(20));
        }
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

fn url(p: &Path) -> String {
    format!("file://{}", p.display())
}

fn workspace(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("reuse-check-lsp-stdio-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(dir.join("src")).unwrap();
    std::fs::write(dir.join("src/lib.rs"), "pub fn f() {}\n").unwrap();
    std::fs::canonicalize(&dir).unwrap()
}

/// Issue 10: `x.rs -> /dev/stdin`, reported created by the client, is not read (the server's
/// stdin is the client's pipe, still open: reading it would hang the server for good).
#[cfg(unix)]
#[test]
fn a_link_to_dev_stdin_reported_by_the_client_does_not_hang_the_server() {
    let root = workspace("stdin");
    std::os::unix::fs::symlink("/dev/stdin", root.join("src/x.rs")).unwrap();
    let mut s = Server::start(&root);
    s.send(&json!({ "jsonrpc": "2.0", "method": "workspace/didChangeWatchedFiles", "params": { "changes": [{ "uri": url(&root.join("src/x.rs")), "type": 1 }] } }));
    let lib = url(&root.join("src/lib.rs"));
    assert!(s.hover(1, &lib).get("error").is_none());
    assert_eq!(s.stop(), 0);
    let _ = std::fs::remove_dir_all(&root);
}

/// Issue 9: a frame without `Content-Length`, and one whose `Content-Length` is one byte too
/// large, cost nothing after them: 20 requests answered, `exit` honoured.
#[test]
fn bad_frames_on_stdin_cost_only_themselves() {
    let root = workspace("frames");
    let lib = url(&root.join("src/lib.rs"));
    let mut s = Server::start(&root);
    s.raw("Content-Type: application/json\r\n\r\n{}");
    for id in 1..=20 {
        s.hover(id, &lib);
    }
    let body = json!({ "jsonrpc": "2.0", "method": "$/noop" }).to_string();
    s.raw(&format!("Content-Length: {}\r\n\r\n{body}", body.len() + 1));
    for id in 21..=40 {
        s.hover(id, &lib);
    }
    assert_eq!(s.stop(), 0);
    let _ = std::fs::remove_dir_all(&root);
}

/// Issue 5 (editor part): 1,500 nested `if`s and a 30,000-link method chain in a `didChange` do
/// not overflow the server's stack (it used to abort with status 134).
#[test]
fn deeply_nested_text_does_not_abort_the_binary() {
    let root = workspace("deep");
    let lib = url(&root.join("src/lib.rs"));
    let mut s = Server::start(&root);
    s.send(&json!({ "jsonrpc": "2.0", "method": "textDocument/didOpen", "params": { "textDocument": { "uri": lib, "languageId": "rust", "version": 1, "text": "pub fn f() {}\n" } } }));
    let ifs = format!("pub fn deep(c: bool) {{\n{}{}\n}}\n", "if c { ".repeat(1_500), "} ".repeat(1_500));
    let chain = format!("pub fn chain(v: Vec<u8>) {{\n    v{};\n}}\n", ".clone()".repeat(30_000));
    for (version, text) in [(2, ifs), (3, chain)] {
        s.send(&json!({ "jsonrpc": "2.0", "method": "textDocument/didChange", "params": { "textDocument": { "uri": lib, "version": version }, "contentChanges": [{ "text": text }] } }));
        assert!(s.hover(version, &lib).get("error").is_none());
    }
    assert_eq!(s.stop(), 0);
    let _ = std::fs::remove_dir_all(&root);
}
