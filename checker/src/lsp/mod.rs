//! `reuse-check lsp`: the language server.
//!
//! The workspace folder is opened once, as `reuse-check <folder>` would check it (a Cargo
//! workspace or package, or a tree of `.rs` files), as an [`crate::engine::Session`]: the contract index
//! covers all of it. An open document is re-checked from its in-memory text on open, change and
//! save, and its findings are published as diagnostics.
//! Hovers show the contract of a called function and the rule docs of a contract clause; code
//! actions insert a suppression comment or apply a finding's [`crate::finding::Fix`].
//!
//! One thread does all the work (on a 256 MiB stack, so deeply nested text cannot overflow it), in
//! a loop: wait for a message, then drain every message already
//! queued (edits are applied to the text, requests answered), then check each document that
//! changed, once, at its latest version. A fast typist queues many `didChange`s while a check runs;
//! they cost one check, not one each. An edit is handed to the engine ([`Session::edit`]), which
//! re-checks only the items it can change when it can tell which (a few milliseconds on a
//! 5,000-line file, where the whole file takes tens). Each message and each check runs under
//! `catch_unwind`: a bug answers one request with an error instead of killing the server. The [`transport`] answers
//! malformed JSON-RPC itself and keeps reading; end of input without `shutdown` ends the server
//! cleanly. Files are read from disk only through [`read_workspace_file`]: regular files inside
//! the workspace, never a device, a FIFO or a link out of the tree.
//!
//! Only this module knows about LSP; it talks to the checker through [`crate::engine::Session`].

mod actions;
mod convert;
mod hover;
mod transport;

#[cfg(test)]
mod tests;

// `declares`: whether a text can declare contracts or effects (the engine's prefilter); editing
// such a file can change the findings of every other file.
use crate::engine::declares;
use std::collections::BTreeMap;
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::sync::Arc;

use lsp_server::{Connection, ErrorCode, Message, Notification, Request, RequestId, Response};
use lsp_types::notification::{self as notif, Notification as _};
use lsp_types::request::{self as req, Request as _};
use lsp_types::{
    CodeActionKind, CodeActionOptions, CodeActionProviderCapability, DidChangeTextDocumentParams, DidChangeWatchedFilesParams,
    DidChangeWatchedFilesRegistrationOptions, DidCloseTextDocumentParams, DidOpenTextDocumentParams, DidSaveTextDocumentParams,
    FileChangeType, FileSystemWatcher, GlobPattern, HoverProviderCapability, InitializeParams, InitializeResult,
    PublishDiagnosticsParams, Registration, RegistrationParams, SaveOptions, ServerCapabilities, ServerInfo,
    TextDocumentSyncCapability, TextDocumentSyncKind, TextDocumentSyncOptions, TextDocumentSyncSaveOptions, Url,
};
use serde::de::DeserializeOwned;
use serde_json::Value;

use crate::engine::Session;
use crate::finding::Finding;
use crate::source::{FileRef, SourceFile};
use crate::workspace::Target;

const USAGE: &str = "usage: reuse-check lsp [--stdio]\n\nRuns the reuse-check language server on stdin/stdout (JSON-RPC, LSP 3.17).\n";

/// `reuse-check lsp [--stdio]`: serves on stdin/stdout until `exit` or end of input.
pub fn main(args: &[String]) -> ExitCode {
    for a in args {
        match a.as_str() {
            "--stdio" => {}
            "-h" | "--help" => {
                print!("{USAGE}");
                return ExitCode::SUCCESS;
            }
            "-V" | "--version" => {
                println!("reuse-check {}", env!("CARGO_PKG_VERSION"));
                return ExitCode::SUCCESS;
            }
            other => {
                eprint!("error: unexpected argument `{other}`\n\n{USAGE}");
                return ExitCode::from(2);
            }
        }
    }
    let (conn, io) = transport::stdio();
    let outcome = serve(&conn);
    drop(conn);
    io.join_writer(std::time::Duration::from_secs(5));
    // LSP: `exit` without a `shutdown` first exits with 1. A client that just went away is not an
    // error of the server.
    if outcome.exit_without_shutdown {
        ExitCode::from(1)
    } else {
        ExitCode::SUCCESS
    }
}

/// How the server loop ended.
#[derive(Debug, Default, PartialEq, Eq)]
pub struct Outcome {
    pub shutdown: bool,
    pub exit_without_shutdown: bool,
}

/// The stack of the thread that parses and analyses (and of the pool that indexes at
/// `initialize`): deep nesting in the text of a document (1,500 nested `if`s, a 30,000-link method
/// chain) must not overflow where the CLI's parse would report it. Only touched pages are
/// committed.
const WORKER_STACK: usize = 256 << 20;

/// Runs the server on a connection until `exit` or until the client side is closed, on a thread
/// of its own with a [`WORKER_STACK`]-sized stack.
pub fn serve(conn: &Connection) -> Outcome {
    std::thread::scope(|scope| {
        let worker = std::thread::Builder::new().name("lsp-server".into()).stack_size(WORKER_STACK).spawn_scoped(scope, || serve_here(conn));
        match worker.map(|w| w.join()) {
            Ok(Ok(outcome)) => outcome,
            // Every message is handled under `catch_unwind`; this is a panic outside of them.
            Ok(Err(_)) => {
                eprintln!("reuse-check lsp: internal error in the server loop");
                Outcome::default()
            }
            Err(e) => {
                eprintln!("reuse-check lsp: cannot start the server thread ({e}); serving on this one");
                serve_here(conn)
            }
        }
    })
}

/// Serves the frames in `input` (the bytes a client writes to the server's stdin) until `exit` or
/// their end, and returns how it ended and every byte the server wrote. The fuzz target and the
/// transport tests drive the whole server through it.
pub fn serve_bytes(input: Vec<u8>) -> (Outcome, Vec<u8>) {
    let out = transport::SharedBuffer::default();
    let (conn, io) = transport::spawn(std::io::Cursor::new(input), out.clone());
    let outcome = serve(&conn);
    drop(conn);
    io.join();
    (outcome, out.take())
}

/// The pool that opens sessions: `Session::open` parses the declaring files in parallel, and a
/// deeply nested one must not overflow a default-sized stack before `initialize` is answered.
fn index_pool() -> Option<&'static rayon::ThreadPool> {
    static POOL: std::sync::OnceLock<Option<rayon::ThreadPool>> = std::sync::OnceLock::new();
    POOL.get_or_init(|| rayon::ThreadPoolBuilder::new().thread_name(|i| format!("lsp-index-{i}")).stack_size(WORKER_STACK).build().ok()).as_ref()
}

fn serve_here(conn: &Connection) -> Outcome {
    let mut server = Server::new(conn);
    while let Ok(first) = conn.receiver.recv() {
        let mut batch = vec![first];
        batch.extend(conn.receiver.try_iter());
        for msg in batch {
            if let Some(outcome) = server.handle(msg) {
                return outcome;
            }
        }
        server.check_dirty();
    }
    eprintln!("reuse-check lsp: the client closed the connection{}", if server.shut_down { "" } else { " without shutdown" });
    Outcome { shutdown: server.shut_down, exit_without_shutdown: false }
}

/// An open document.
struct Doc {
    uri: Url,
    version: i32,
    text: String,
    /// Changed since its findings were published.
    dirty: bool,
    /// The text the findings were computed on, and the findings (for code actions).
    checked: Option<(FileRef, Vec<Finding>)>,
}

struct Server<'c> {
    conn: &'c Connection,
    initialized: bool,
    shut_down: bool,
    /// The workspace folder the client opened.
    root: Option<PathBuf>,
    session: Option<Session>,
    /// Why the session could not be opened, reported once.
    session_error: Option<String>,
    docs: BTreeMap<PathBuf, Doc>,
    /// The client can watch files for us.
    watch_files: bool,
    next_id: i32,
}

impl<'c> Server<'c> {
    fn new(conn: &'c Connection) -> Self {
        Server {
            conn,
            initialized: false,
            shut_down: false,
            root: None,
            session: None,
            session_error: None,
            docs: BTreeMap::new(),
            watch_files: false,
            next_id: 0,
        }
    }

    /// Handles one message; `Some` when the server must stop.
    fn handle(&mut self, msg: Message) -> Option<Outcome> {
        match msg {
            Message::Request(r) => {
                let id = r.id.clone();
                let method = r.method.clone();
                match catch_unwind(AssertUnwindSafe(|| self.request(r))) {
                    Ok(Some(resp)) => self.send(resp.into()),
                    Ok(None) => {}
                    Err(_) => {
                        eprintln!("reuse-check lsp: internal error while handling `{method}`");
                        self.send(Response::new_err(id, ErrorCode::InternalError as i32, format!("internal error in reuse-check while handling `{method}`")).into());
                    }
                }
                None
            }
            Message::Notification(n) => {
                if n.method == notif::Exit::METHOD {
                    return Some(Outcome { shutdown: self.shut_down, exit_without_shutdown: !self.shut_down });
                }
                let method = n.method.clone();
                if catch_unwind(AssertUnwindSafe(|| self.notification(n))).is_err() {
                    eprintln!("reuse-check lsp: internal error while handling `{method}`");
                }
                None
            }
            // Answers to our own requests (capability registration): nothing to do.
            Message::Response(_) => None,
        }
    }

    fn request(&mut self, r: Request) -> Option<Response> {
        if r.method == req::Initialize::METHOD {
            if self.initialized {
                return Some(err(r.id, ErrorCode::InvalidRequest, "the server is already initialized"));
            }
            let params: InitializeParams = serde_json::from_value(r.params).unwrap_or_default();
            return Some(Response::new_ok(r.id, self.initialize(params)));
        }
        if !self.initialized {
            return Some(err(r.id, ErrorCode::ServerNotInitialized, "the server is not initialized yet"));
        }
        if self.shut_down {
            return Some(err(r.id, ErrorCode::InvalidRequest, "the server is shutting down"));
        }
        match r.method.as_str() {
            req::Shutdown::METHOD => {
                self.shut_down = true;
                Some(Response::new_ok(r.id, Value::Null))
            }
            req::HoverRequest::METHOD => Some(match params::<lsp_types::HoverParams>(&r) {
                Ok(p) => Response::new_ok(r.id, self.hover(p)),
                Err(resp) => resp,
            }),
            req::CodeActionRequest::METHOD => Some(match params::<lsp_types::CodeActionParams>(&r) {
                Ok(p) => Response::new_ok(r.id, self.code_actions(p)),
                Err(resp) => resp,
            }),
            _ => Some(err(r.id, ErrorCode::MethodNotFound, &format!("unknown method `{}`", r.method))),
        }
    }

    fn notification(&mut self, n: Notification) {
        if !self.initialized || self.shut_down {
            return;
        }
        match n.method.as_str() {
            notif::Initialized::METHOD => self.register_watchers(),
            notif::DidOpenTextDocument::METHOD => {
                let Ok(p) = serde_json::from_value::<DidOpenTextDocumentParams>(n.params) else { return };
                let Some(path) = path_of(&p.text_document.uri) else { return };
                let doc = Doc { uri: p.text_document.uri, version: p.text_document.version, text: p.text_document.text, dirty: true, checked: None };
                self.docs.insert(path, doc);
            }
            notif::DidChangeTextDocument::METHOD => {
                let Ok(p) = serde_json::from_value::<DidChangeTextDocumentParams>(n.params) else { return };
                let Some(doc) = path_of(&p.text_document.uri).and_then(|path| self.docs.get_mut(&path)) else { return };
                for change in p.content_changes {
                    match change.range {
                        Some(r) => {
                            let start = convert::offset_in_text(&doc.text, r.start);
                            let end = convert::offset_in_text(&doc.text, r.end).max(start);
                            doc.text.replace_range(start..end, &change.text);
                        }
                        None => doc.text = change.text,
                    }
                }
                doc.version = p.text_document.version;
                doc.dirty = true;
            }
            notif::DidSaveTextDocument::METHOD => {
                let Ok(p) = serde_json::from_value::<DidSaveTextDocumentParams>(n.params) else { return };
                let Some(doc) = path_of(&p.text_document.uri).and_then(|path| self.docs.get_mut(&path)) else { return };
                if let Some(text) = p.text {
                    doc.text = text;
                }
                doc.dirty = true;
            }
            notif::DidCloseTextDocument::METHOD => {
                let Ok(p) = serde_json::from_value::<DidCloseTextDocumentParams>(n.params) else { return };
                let Some(path) = path_of(&p.text_document.uri) else { return };
                if let Some(doc) = self.docs.remove(&path) {
                    // The file is what is on disk again; its diagnostics go with the editor.
                    self.reload_from_disk(&path, &path, declares(&doc.text));
                    self.publish(doc.uri, None, Vec::new());
                }
            }
            notif::DidChangeWatchedFiles::METHOD => {
                let Ok(p) = serde_json::from_value::<DidChangeWatchedFilesParams>(n.params) else { return };
                for change in p.changes {
                    // The path as the client names it: a link is judged by its own name, and its
                    // target only by `read_workspace_file`.
                    let Ok(named) = change.uri.to_file_path() else { continue };
                    let Some(path) = path_of(&change.uri) else { continue };
                    if self.docs.contains_key(&path) || !is_rust(&named) {
                        continue;
                    }
                    let deleted = change.typ == FileChangeType::DELETED;
                    self.reload_from_disk(&named, &path, deleted);
                }
            }
            // `$/cancelRequest`, `$/setTrace`, and whatever else: nothing to do.
            _ => {}
        }
    }

    fn initialize(&mut self, params: InitializeParams) -> InitializeResult {
        self.initialized = true;
        #[allow(deprecated)] // `root_uri` and `root_path`: older clients send only these
        let root = params
            .workspace_folders
            .as_ref()
            .and_then(|f| f.first())
            .and_then(|f| path_of(&f.uri))
            .or_else(|| params.root_uri.as_ref().and_then(path_of))
            .or_else(|| params.root_path.as_ref().map(PathBuf::from));
        self.watch_files = params
            .capabilities
            .workspace
            .as_ref()
            .and_then(|w| w.did_change_watched_files.as_ref())
            .and_then(|d| d.dynamic_registration)
            .unwrap_or(false);
        if let Some(root) = root {
            self.open_session(&root);
            self.root = Some(root);
        }
        let capabilities = ServerCapabilities {
            text_document_sync: Some(TextDocumentSyncCapability::Options(TextDocumentSyncOptions {
                open_close: Some(true),
                change: Some(TextDocumentSyncKind::INCREMENTAL),
                save: Some(TextDocumentSyncSaveOptions::SaveOptions(SaveOptions { include_text: Some(false) })),
                ..Default::default()
            })),
            hover_provider: Some(HoverProviderCapability::Simple(true)),
            code_action_provider: Some(CodeActionProviderCapability::Options(CodeActionOptions {
                code_action_kinds: Some(vec![CodeActionKind::QUICKFIX]),
                ..Default::default()
            })),
            ..Default::default()
        };
        InitializeResult { capabilities, server_info: Some(ServerInfo { name: "reuse-check".into(), version: Some(env!("CARGO_PKG_VERSION").into()) }) }
    }

    /// Opens what `reuse-check <dir>` would check.
    fn open_session(&mut self, dir: &Path) {
        let target = Target { path: Some(dir.to_path_buf()), ..Default::default() };
        let open = || match index_pool() {
            Some(pool) => pool.install(|| Session::open(&target)),
            None => Session::open(&target),
        };
        match catch_unwind(open) {
            Ok(Ok(s)) => {
                eprintln!("reuse-check lsp: indexed {} contracted functions under {}", s.index().fns.len(), s.root.display());
                self.session = Some(s);
                self.session_error = None;
            }
            Ok(Err(e)) if dir.join("src").is_dir() && !dir.ends_with("src") => {
                // A manifest `cargo metadata` rejects (mid-edit, say): check the package's sources
                // as a plain tree rather than nothing, and say so.
                eprintln!("reuse-check lsp: {e}; checking the .rs files under {} without Cargo metadata", dir.join("src").display());
                self.open_session(&dir.join("src"));
                if self.session.is_some() {
                    self.session_error = Some(format!("reuse-check cannot read the Cargo workspace at {} ({e}); checking its src/ as plain files", dir.display()));
                }
            }
            Ok(Err(e)) => self.session_error = Some(format!("reuse-check cannot open the workspace at {}: {e}", dir.display())),
            Err(_) => self.session_error = Some(format!("reuse-check failed while opening the workspace at {}", dir.display())),
        }
    }

    /// A session for a document outside any opened workspace: the nearest enclosing package.
    fn ensure_session(&mut self, path: &Path) {
        if self.session.is_some() {
            return;
        }
        let dir = path.parent().unwrap_or(Path::new("/"));
        let pkg = dir.ancestors().find(|d| d.join("Cargo.toml").is_file()).unwrap_or(dir).to_path_buf();
        self.open_session(&pkg);
        if let Some(why) = self.session_error.take() {
            eprintln!("reuse-check lsp: {why}");
            self.show_message(lsp_types::MessageType::ERROR, why);
        }
    }

    /// Watch `.rs` files, so a contract edited outside the editor re-checks its callers.
    fn register_watchers(&mut self) {
        if let Some(why) = self.session_error.take() {
            eprintln!("reuse-check lsp: {why}");
            self.show_message(lsp_types::MessageType::ERROR, why);
        }
        if !self.watch_files {
            return;
        }
        let options = DidChangeWatchedFilesRegistrationOptions {
            watchers: vec![FileSystemWatcher { glob_pattern: GlobPattern::String("**/*.rs".into()), kind: None }],
        };
        let params = RegistrationParams {
            registrations: vec![Registration {
                id: "reuse-check-watch-rs".into(),
                method: notif::DidChangeWatchedFiles::METHOD.into(),
                register_options: serde_json::to_value(options).ok(),
            }],
        };
        self.next_id += 1;
        let id = RequestId::from(format!("reuse-check-{}", self.next_id));
        self.send(Request::new(id, req::RegisterCapability::METHOD.into(), params).into());
    }

    /// Puts the disk version of a file that is not open (or no longer open) into the session
    /// (`named`: the path the client gave, `path`: the session's canonical one). A change that can
    /// touch contracts re-checks every open document. Only a regular file inside the workspace is
    /// read ([`read_workspace_file`]); anything else is reported and counts as gone.
    fn reload_from_disk(&mut self, named: &Path, path: &Path, force_recheck: bool) {
        let Some(session) = self.session.as_ref() else { return };
        let text = match read_workspace_file(named, &session.root) {
            Ok(text) => text.unwrap_or_default(),
            Err(why) => {
                let why = format!("reuse-check did not read {}: {why}", named.display());
                eprintln!("reuse-check lsp: {why}");
                self.log_message(lsp_types::MessageType::WARNING, why);
                String::new()
            }
        };
        let Some(session) = self.session.as_mut() else { return };
        let before = session.file(path).map(|f| declares(&f.text)).unwrap_or(false);
        let touches_contracts = before || declares(&text) || force_recheck;
        if session.file(path).is_none() && text.is_empty() {
            return;
        }
        if catch_unwind(AssertUnwindSafe(|| session.update(path, text))).is_err() {
            eprintln!("reuse-check lsp: internal error while re-reading {}", path.display());
        }
        if touches_contracts {
            self.docs.values_mut().for_each(|d| d.dirty = true);
        }
    }

    /// Checks every changed document at its latest text and publishes its findings. The other
    /// open documents are brought up to date with what the edits changed (`Session::edit` of
    /// their unchanged text: the items that name what changed, else the whole file), and published
    /// when anything of them was checked again.
    fn check_dirty(&mut self) {
        let dirty: Vec<PathBuf> = self.docs.iter().filter(|(_, d)| d.dirty).map(|(p, _)| p.clone()).collect();
        let Some(first) = dirty.first() else { return };
        self.ensure_session(first);
        let Some(session) = self.session.as_mut() else {
            self.docs.values_mut().for_each(|d| d.dirty = false);
            return;
        };
        let mut results: Vec<(PathBuf, Vec<Finding>)> = Vec::new();
        for path in &dirty {
            let doc = self.docs.get_mut(path).expect("listed above");
            doc.dirty = false;
            if !is_rust(path) {
                continue;
            }
            let text = doc.text.clone();
            match catch_unwind(AssertUnwindSafe(|| session.edit(path, text))) {
                Ok(edit) => results.push((path.clone(), edit.findings)),
                Err(_) => eprintln!("reuse-check lsp: internal error while checking {}", path.display()),
            }
        }
        // A document checked before a later edit of another one (in this batch, or the others
        // open) is checked again where that edit may change its findings; one that nothing
        // changed for answers at once (no item checked again) and is not published again.
        let open: Vec<(PathBuf, String)> = self.docs.iter().filter(|(p, _)| is_rust(p)).map(|(p, d)| (p.clone(), d.text.clone())).collect();
        for (path, text) in open {
            match catch_unwind(AssertUnwindSafe(|| session.edit(&path, text))) {
                Ok(edit) if edit.items == Some(0) => {}
                Ok(edit) => {
                    results.retain(|(p, _)| *p != path);
                    results.push((path, edit.findings));
                }
                Err(_) => eprintln!("reuse-check lsp: internal error while checking {}", path.display()),
            }
        }
        for (path, findings) in results {
            self.store_and_publish(&path, findings);
        }
    }

    /// Keeps a document's findings (for code actions) and publishes them; they were computed on
    /// the session's copy of its text.
    fn store_and_publish(&mut self, path: &Path, findings: Vec<Finding>) {
        let (Some(session), Some(doc)) = (self.session.as_ref(), self.docs.get_mut(path)) else { return };
        let file = session.file(path).cloned().unwrap_or_else(|| Arc::new(SourceFile::new(path.to_path_buf(), String::new(), doc.text.clone())));
        let findings: Vec<Finding> = findings.into_iter().filter(|f| f.primary.file.path == path).collect();
        let diagnostics = findings.iter().map(|f| convert::diagnostic(f, &session.root)).collect();
        doc.checked = Some((file, findings));
        let (uri, version) = (doc.uri.clone(), doc.version);
        self.publish(uri, Some(version), diagnostics);
    }

    fn hover(&mut self, p: lsp_types::HoverParams) -> Option<lsp_types::Hover> {
        let uri = &p.text_document_position_params.text_document.uri;
        let path = path_of(uri)?;
        let doc = self.docs.get(&path)?;
        let session = self.session.as_ref()?;
        // The document's current text: positions are the client's, on what it shows.
        let file: FileRef = Arc::new(SourceFile::new(path.clone(), String::new(), doc.text.clone()));
        let offset = convert::offset(&file, p.text_document_position_params.position);
        let found = session.hover_at(&path, &doc.text, offset)?;
        hover::hover(&file, found)
    }

    fn code_actions(&mut self, p: lsp_types::CodeActionParams) -> Option<Vec<lsp_types::CodeActionOrCommand>> {
        let path = path_of(&p.text_document.uri)?;
        if self.docs.get(&path)?.dirty {
            self.check_dirty();
        }
        let doc = self.docs.get(&path)?;
        let (file, findings) = doc.checked.as_ref()?;
        let root = self.session.as_ref().map(|s| s.root.clone()).unwrap_or_default();
        Some(actions::code_actions(&doc.uri, file, findings, p.range, &root))
    }

    fn publish(&self, uri: Url, version: Option<i32>, diagnostics: Vec<lsp_types::Diagnostic>) {
        let params = PublishDiagnosticsParams { uri, diagnostics, version };
        self.send(Notification::new(notif::PublishDiagnostics::METHOD.into(), params).into());
    }

    fn log_message(&self, typ: lsp_types::MessageType, message: String) {
        let params = lsp_types::LogMessageParams { typ, message };
        self.send(Notification::new(notif::LogMessage::METHOD.into(), params).into());
    }

    fn show_message(&self, typ: lsp_types::MessageType, message: String) {
        let params = lsp_types::ShowMessageParams { typ, message };
        self.send(Notification::new(notif::ShowMessage::METHOD.into(), params).into());
    }

    fn send(&self, msg: Message) {
        // The client is gone when this fails; the loop ends when its input does.
        let _ = self.conn.sender.send(msg);
    }
}

fn err(id: RequestId, code: ErrorCode, message: &str) -> Response {
    Response::new_err(id, code as i32, message.to_string())
}

fn params<P: DeserializeOwned>(r: &Request) -> Result<P, Response> {
    serde_json::from_value(r.params.clone()).map_err(|e| err(r.id.clone(), ErrorCode::InvalidParams, &format!("invalid params for `{}`: {e}", r.method)))
}

/// The path of a `file:` URI, canonical when the file exists (the session's paths are).
fn path_of(uri: &Url) -> Option<PathBuf> {
    let path = uri.to_file_path().ok()?;
    Some(std::fs::canonicalize(&path).unwrap_or(path))
}

/// Files larger than this are not read from disk (a generated file, or a device that never ends).
const MAX_FILE_BYTES: u64 = 16 << 20;

/// The text of a file the client says changed: `None` when it does not exist. Only a regular file
/// inside `root` is read: the client names paths from the workspace, and the workspace is not
/// trusted (a committed `x.rs -> /dev/stdin` would make the server read its own input and hang, a
/// link to a FIFO would block the open, a link out of the tree would read files the user never
/// asked to check). Links are resolved first and the target must lie under `root`; then
/// [`crate::source::read_regular_file`] reads at most [`MAX_FILE_BYTES`].
fn read_workspace_file(path: &Path, root: &Path) -> Result<Option<String>, String> {
    let real = match std::fs::canonicalize(path) {
        Ok(p) => p,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound && std::fs::symlink_metadata(path).is_err() => return Ok(None),
        Err(e) => return Err(format!("it cannot be resolved ({e})")),
    };
    let root = std::fs::canonicalize(root).unwrap_or_else(|_| root.to_path_buf());
    if !real.starts_with(&root) {
        return Err(format!("it is outside the workspace (it resolves to {})", real.display()));
    }
    let meta = std::fs::symlink_metadata(&real).map_err(|e| e.to_string())?;
    if !meta.is_file() {
        return Err("it is not a regular file".into());
    }
    use crate::source::ReadError;
    let bytes = crate::source::read_regular_file(&real, MAX_FILE_BYTES).map_err(|e| match e {
        ReadError::Io(e) => e.to_string(),
        ReadError::NotRegular => "it is not a regular file".into(),
        ReadError::TooLarge(len) => format!("it has {len} bytes, more than the {MAX_FILE_BYTES} the server reads"),
    })?;
    Ok(Some(String::from_utf8_lossy(&bytes).into_owned()))
}

fn is_rust(path: &Path) -> bool {
    path.extension().is_some_and(|e| e == "rs")
}
