//! JSON-RPC over stdio that survives a bad client.
//!
//! `lsp_server::Connection::stdio()` ends its reader thread on the first malformed frame or payload,
//! which leaves the server deaf. This transport reads frames itself: a frame without a usable
//! `Content-Length`, a body that is not UTF-8 or not JSON, or JSON that is not a JSON-RPC message is
//! answered with the JSON-RPC error (`-32700` parse error, `-32600` invalid request) and reading
//! goes on. A bad frame costs only itself: reading resynchronises on the next `Content-Length:`
//! header, even one glued to the end of an undelimited body, and a JSON body ends where its value
//! ends when `Content-Length` says more (see [`read_frame`]). The server loop still sees an
//! ordinary [`lsp_server::Connection`].
//!
//! The channel from the reader is unbounded, so the reader keeps draining stdin while a check runs;
//! the server then finds every pending edit in the queue and checks only the latest text.

use std::io::{self, BufRead, Read, Write};
use std::sync::{Arc, Mutex};
use std::thread;

use crossbeam_channel::{unbounded, Receiver, Sender};
use lsp_server::{Connection, Message};
use serde_json::{json, Value};

/// Larger bodies are skipped (and answered with a parse error) rather than buffered.
const MAX_BODY: usize = 256 << 20;
/// A header line longer than this is garbage.
const MAX_HEADER_LINE: u64 = 16 << 10;

pub struct IoThreads {
    reader: thread::JoinHandle<()>,
    writer: thread::JoinHandle<()>,
}

impl IoThreads {
    /// Waits (at most `timeout`) for the writer to flush what the server sent: a client that stopped
    /// reading must not keep the server alive. The reader is not waited for: after an `exit` it has
    /// stopped, and after a lost client it is blocked on a stdin nobody writes to.
    pub fn join_writer(self, timeout: std::time::Duration) {
        drop(self.reader);
        let (done, flushed) = crossbeam_channel::bounded::<()>(1);
        let writer = self.writer;
        let _ = thread::Builder::new().name("lsp-writer-join".into()).spawn(move || {
            let _ = writer.join();
            let _ = done.send(());
        });
        let _ = flushed.recv_timeout(timeout);
    }
}

impl IoThreads {
    /// Waits for both threads: for an input that ends on its own (in memory), so that nothing of
    /// the connection outlives the call (the fuzz target runs thousands in one process).
    pub fn join(self) {
        let _ = self.reader.join();
        let _ = self.writer.join();
    }
}

/// A connection over this process's stdin and stdout.
pub fn stdio() -> (Connection, IoThreads) {
    spawn(io::BufReader::new(io::stdin()), io::stdout())
}

/// An in-memory output that the caller can read back while the writer thread holds a clone.
#[derive(Clone, Default)]
pub struct SharedBuffer(pub Arc<Mutex<Vec<u8>>>);

impl SharedBuffer {
    pub fn take(&self) -> Vec<u8> {
        std::mem::take(&mut *self.0.lock().unwrap_or_else(|p| p.into_inner()))
    }
}

impl Write for SharedBuffer {
    fn write(&mut self, b: &[u8]) -> io::Result<usize> {
        self.0.lock().unwrap_or_else(|p| p.into_inner()).extend_from_slice(b);
        Ok(b.len())
    }
    fn flush(&mut self) -> io::Result<()> {
        Ok(())
    }
}

/// A connection over any byte streams (tests use in-memory ones).
pub fn spawn<R, W>(input: R, output: W) -> (Connection, IoThreads)
where
    R: BufRead + Send + 'static,
    W: Write + Send + 'static,
{
    let output = Arc::new(Mutex::new(output));
    let (to_server, from_client) = unbounded::<Message>();
    let (to_client, for_writer) = unbounded::<Message>();
    let reader_out = output.clone();
    let reader = thread::Builder::new()
        .name("lsp-reader".into())
        .spawn(move || read_loop(input, &to_server, &reader_out))
        .expect("spawn the reader thread");
    let writer = thread::Builder::new().name("lsp-writer".into()).spawn(move || write_loop(&for_writer, &output)).expect("spawn the writer thread");
    (Connection { sender: to_client, receiver: from_client }, IoThreads { reader, writer })
}

fn write_loop<W: Write>(messages: &Receiver<Message>, output: &Mutex<W>) {
    for msg in messages {
        let mut out = match output.lock() {
            Ok(o) => o,
            Err(poisoned) => poisoned.into_inner(),
        };
        // A closed stdout means the client is gone: stop writing, the server ends on its own.
        if msg.write(&mut *out).and_then(|_| out.flush()).is_err() {
            return;
        }
    }
}

/// What one frame turned out to be.
enum Frame {
    Body(Vec<u8>),
    Bad(String),
    Eof,
}

fn read_loop<R: BufRead, W: Write>(mut input: R, to_server: &Sender<Message>, output: &Mutex<W>) {
    loop {
        let frame = match read_frame(&mut input) {
            Ok(f) => f,
            Err(_) => Frame::Eof,
        };
        let body = match frame {
            Frame::Eof => return,
            Frame::Bad(why) => {
                reply_error(output, Value::Null, -32700, &why);
                continue;
            }
            Frame::Body(b) => b,
        };
        match parse_message(&body) {
            Ok(msg) => {
                let exit = matches!(&msg, Message::Notification(n) if n.method == "exit");
                if to_server.send(msg).is_err() || exit {
                    return;
                }
            }
            Err((id, code, why)) => reply_error(output, id, code, &why),
        }
    }
}

/// A JSON-RPC message, or the id (if any could be read), error code and reason to answer with.
fn parse_message(body: &[u8]) -> Result<Message, (Value, i32, String)> {
    let text = std::str::from_utf8(body).map_err(|e| (Value::Null, -32700, format!("the message is not UTF-8: {e}")))?;
    let value: Value = serde_json::from_str(text).map_err(|e| (Value::Null, -32700, format!("the message is not JSON: {e}")))?;
    let id = match value.get("id") {
        Some(id @ (Value::Number(_) | Value::String(_))) => id.clone(),
        _ => Value::Null,
    };
    if !value.is_object() || value.get("method").is_some_and(|m| !m.is_string()) {
        return Err((id, -32600, "not a JSON-RPC request, response or notification".into()));
    }
    serde_json::from_value(value).map_err(|e| (id, -32600, format!("not a JSON-RPC message: {e}")))
}

fn reply_error<W: Write>(output: &Mutex<W>, id: Value, code: i32, message: &str) {
    eprintln!("reuse-check lsp: ignored a bad message: {message}");
    let body = json!({ "jsonrpc": "2.0", "id": id, "error": { "code": code, "message": message } }).to_string();
    let mut out = match output.lock() {
        Ok(o) => o,
        Err(poisoned) => poisoned.into_inner(),
    };
    let _ = write!(out, "Content-Length: {}\r\n\r\n{}", body.len(), body).and_then(|_| out.flush());
}

/// The header that starts every frame; after a bad frame, reading resynchronises on it.
const CONTENT_LENGTH: &[u8] = b"content-length:";

/// Reads headers up to the blank line, then the body. Lenient about `\n` line ends and unknown
/// headers. Two rules keep one bad frame from costing the frames after it:
/// - a header line that holds `Content-Length:` after other bytes (the end of an undelimited body
///   glued to the next frame's header) starts a new frame at that header;
/// - a body that starts with `{` or `[` ends where its JSON value ends, even when `Content-Length`
///   promised more: the extra bytes are the next frame's, and waiting for them could wait forever.
fn read_frame<R: BufRead>(input: &mut R) -> io::Result<Frame> {
    let mut length: Option<Result<usize, String>> = None;
    let mut saw_header = false;
    loop {
        let Some(line) = read_header_line(input)? else {
            return Ok(if saw_header { Frame::Bad("the stream ended inside a header".into()) } else { Frame::Eof });
        };
        let text = line.trim_ascii();
        if text.is_empty() {
            if !saw_header {
                continue; // stray blank lines between frames
            }
            break;
        }
        saw_header = true;
        if let Some(at) = find_content_length(text) {
            // Anything before the header on its line belongs to a broken frame: start again here.
            let value = String::from_utf8_lossy(&text[at + CONTENT_LENGTH.len()..]).trim().to_string();
            length = Some(value.parse::<usize>().map_err(|_| format!("bad Content-Length `{value}`")));
        }
    }
    let len = match length {
        None => return Ok(Frame::Bad("a message without Content-Length".into())),
        Some(Err(why)) => return Ok(Frame::Bad(why)),
        Some(Ok(len)) => len,
    };
    if len > MAX_BODY {
        io::copy(&mut input.by_ref().take(len as u64), &mut io::sink())?;
        return Ok(Frame::Bad(format!("a message of {len} bytes is too large")));
    }
    read_body(input, len)
}

/// One header line without its line end; `None` at end of input. An over-long line is not kept
/// whole: only its last bytes, where a `Content-Length` header glued to garbage would be.
fn read_header_line<R: BufRead>(input: &mut R) -> io::Result<Option<Vec<u8>>> {
    const TAIL: usize = 64;
    let mut line = Vec::new();
    let mut any = false;
    loop {
        let n = input.by_ref().take(MAX_HEADER_LINE).read_until(b'\n', &mut line)?;
        if n == 0 {
            return Ok(any.then_some(line));
        }
        any = true;
        if line.ends_with(b"\n") {
            line.pop();
            return Ok(Some(line));
        }
        if line.len() > TAIL {
            line.drain(..line.len() - TAIL);
        }
    }
}

/// Where a `Content-Length:` header (any case) starts in a header line.
fn find_content_length(line: &[u8]) -> Option<usize> {
    line.windows(CONTENT_LENGTH.len()).position(|w| w.eq_ignore_ascii_case(CONTENT_LENGTH))
}

/// At most `len` bytes of body. A JSON object or array ends at its closing bracket (strings and
/// escapes are followed byte by byte); anything else is read to `len`.
fn read_body<R: BufRead>(input: &mut R, len: usize) -> io::Result<Frame> {
    let mut body = Vec::with_capacity(len.min(1 << 20));
    let mut scan = JsonEnd::default();
    while body.len() < len {
        let available = input.fill_buf()?;
        if available.is_empty() {
            return Ok(Frame::Eof);
        }
        let want = (len - body.len()).min(available.len());
        let take = match scan.feed(&available[..want]) {
            Some(end) => end,
            None => want,
        };
        body.extend_from_slice(&available[..take]);
        input.consume(take);
        if scan.done {
            if body.len() < len {
                eprintln!("reuse-check lsp: Content-Length {len} is longer than the message ({} bytes); reading on after it", body.len());
            }
            break;
        }
    }
    Ok(Frame::Body(body))
}

/// Finds the end of a JSON object or array in a byte stream fed in pieces.
#[derive(Default)]
struct JsonEnd {
    started: bool,
    /// The body does not start with `{` or `[`: no early end.
    opaque: bool,
    depth: u64,
    in_string: bool,
    escaped: bool,
    done: bool,
}

impl JsonEnd {
    /// How many bytes of `bytes` belong to the value, when it ends inside them.
    fn feed(&mut self, bytes: &[u8]) -> Option<usize> {
        if self.opaque || self.done {
            return None;
        }
        for (i, &b) in bytes.iter().enumerate() {
            if !self.started {
                match b {
                    b' ' | b'\t' | b'\r' | b'\n' => continue,
                    b'{' | b'[' => self.started = true,
                    _ => {
                        self.opaque = true;
                        return None;
                    }
                }
            }
            if self.in_string {
                match (self.escaped, b) {
                    (true, _) => self.escaped = false,
                    (false, b'\\') => self.escaped = true,
                    (false, b'"') => self.in_string = false,
                    _ => {}
                }
                continue;
            }
            match b {
                b'"' => self.in_string = true,
                b'{' | b'[' => self.depth += 1,
                b'}' | b']' => {
                    self.depth = self.depth.saturating_sub(1);
                    if self.depth == 0 {
                        self.done = true;
                        return Some(i + 1);
                    }
                }
                _ => {}
            }
        }
        None
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn frame(body: &str) -> String {
        format!("Content-Length: {}\r\n\r\n{}", body.len(), body)
    }

    /// Feeds `input` to a transport and returns what the server received and what the client got.
    fn run(input: String) -> (Vec<Message>, String) {
        let out = SharedBuffer::default();
        let (conn, threads) = spawn(io::Cursor::new(input.into_bytes()), out.clone());
        let received: Vec<Message> = conn.receiver.iter().collect();
        drop(conn);
        threads.join();
        (received, String::from_utf8(out.take()).unwrap())
    }

    #[test]
    fn bad_frames_are_answered_and_reading_goes_on() {
        let mut input = String::new();
        input += &frame(r#"{"jsonrpc":"2.0","id":1,"method":"a"}"#);
        input += &frame("{not json");
        input += "Content-Length: banana\r\n\r\n";
        input += "garbage line\r\n\r\n";
        input += &frame(r#"[1,2]"#);
        input += &frame(r#"{"jsonrpc":"2.0","id":7,"method":5}"#);
        input += &frame(r#"{"jsonrpc":"2.0","method":"b"}"#);
        input += "Content-Length: 5\n\n"; // bare `\n` line ends are accepted
        input += "{\"x\":";
        let (received, replies) = run(input);
        let methods: Vec<String> = received
            .iter()
            .map(|m| match m {
                Message::Request(r) => r.method.clone(),
                Message::Notification(n) => n.method.clone(),
                Message::Response(_) => "response".into(),
            })
            .collect();
        assert_eq!(methods, ["a", "b"]);
        assert_eq!(replies.matches("-32700").count(), 4, "{replies}");
        assert!(replies.contains(r#""id":7"#), "{replies}");
        assert_eq!(replies.matches("-32600").count(), 2, "{replies}");
    }

    fn request(id: usize) -> String {
        frame(&format!(r#"{{"jsonrpc":"2.0","id":{id},"method":"m"}}"#))
    }

    fn ids(received: &[Message]) -> Vec<String> {
        received.iter().filter_map(|m| if let Message::Request(r) = m { Some(r.id.to_string()) } else { None }).collect()
    }

    /// A body without `Content-Length` glued to the next header, a length one byte too large or
    /// too small, a huge junk line: each costs itself only.
    #[test]
    fn reading_resynchronises_on_the_next_content_length_after_a_bad_frame() {
        let body = r#"{"jsonrpc":"2.0","id":100,"method":"m"}"#;
        let bad = [
            "Content-Type: application/json\r\n\r\n{}".to_string(),
            format!("Content-Length: {}\r\n\r\n{body}", body.len() + 1),
            format!("Content-Length: {}\r\n\r\n{body}", body.len() + 1000),
            format!("Content-Length: {}\r\n\r\n{body}", body.len() - 1),
            format!("{}Content-Type: x\r\n\r\n", "x".repeat(100_000)),
            format!("{}\r\n\r\n", "{".repeat(100_000)),
        ];
        for junk in bad {
            let mut input = junk.clone();
            for id in 1..=20 {
                input += &request(id);
            }
            let (received, _) = run(input);
            let got = ids(&received);
            let want: Vec<String> = (1..=20).map(|i| i.to_string()).collect();
            assert!(got.ends_with(&want), "after {:?}: {got:?}", &junk[..junk.len().min(80)]);
        }
    }

    #[test]
    fn a_truncated_stream_ends_the_reader() {
        let (received, _) = run("Content-Length: 100\r\n\r\n{\"jsonrpc\"".into());
        assert!(received.is_empty());
    }
}
