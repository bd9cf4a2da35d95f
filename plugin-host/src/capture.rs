//! What a plugin writes besides its result, kept bounded: the `log` import, stdout and stderr.
//! A plugin that floods any of them loses the excess (counted), never the host's memory.

use std::collections::VecDeque;
use std::io;
use std::pin::Pin;
use std::sync::{Arc, Mutex, PoisonError};
use std::task::{Context, Poll};

use bytes::Bytes;
use wasmtime_wasi::cli::{IsTerminal, StdoutStream};
use wasmtime_wasi::p2::{OutputStream, Pollable, StreamResult};

use crate::types::{LogLevel, LogLine};

/// Log lines kept per call; more are counted and dropped.
pub const LOG_MAX_LINES: usize = 100;
/// Bytes of log kept per call, all lines together.
pub const LOG_MAX_BYTES: usize = 16 * 1024;
/// A longer log line is cut to this many bytes.
pub const LOG_LINE_MAX_BYTES: usize = 1024;
/// Bytes of stdout and of stderr kept per call: the last ones written.
pub const PIPE_TAIL_BYTES: usize = 64 * 1024;

/// The `log` lines of one call, bounded.
#[derive(Debug, Default)]
pub(crate) struct LogSink {
    pub lines: Vec<LogLine>,
    pub bytes: usize,
    pub dropped: usize,
}

impl LogSink {
    pub fn push(&mut self, level: LogLevel, message: &str) {
        if self.lines.len() >= LOG_MAX_LINES || self.bytes >= LOG_MAX_BYTES {
            self.dropped += 1;
            return;
        }
        // Escaping can lengthen the line: cut, escape, cut again to the line's and the call's budget.
        let escaped = escape(truncate(message, LOG_LINE_MAX_BYTES));
        let message = truncate(&escaped, LOG_LINE_MAX_BYTES.min(LOG_MAX_BYTES - self.bytes)).to_string();
        self.bytes += message.len();
        self.lines.push(LogLine { level, message });
    }
}

/// The longest prefix of `s` of at most `max` bytes that ends on a character boundary.
pub(crate) fn truncate(s: &str, max: usize) -> &str {
    if s.len() <= max {
        return s;
    }
    let mut end = max;
    while !s.is_char_boundary(end) {
        end -= 1;
    }
    &s[..end]
}

/// `s` safe to print on a terminal, newlines kept (a plugin's docs and output are multi-line
/// by nature): the one escape spindle applies to every string it did not write,
/// `spindle_core::untrusted`, so the report and stderr escape what the host escapes.
pub(crate) fn escape(s: &str) -> String {
    spindle_core::untrusted::escape_keeping_lines(s).into_owned()
}

/// `s` escaped as [`escape`] does, in at most `max` bytes of escaped text; the rest is left out
/// and counted, as `… (N more bytes)` of `s`. Only the part kept is looked at, so a plugin's
/// 50 MB string costs what `max` bytes cost.
pub(crate) fn escape_bounded(s: &str, max: usize) -> String {
    let mut out = String::with_capacity(s.len().min(max));
    let mut buf = [0u8; 4];
    for (i, c) in s.char_indices() {
        let before = out.len();
        out.push_str(&spindle_core::untrusted::escape_keeping_lines(c.encode_utf8(&mut buf)));
        if out.len() > max {
            out.truncate(before);
            out.push_str(&format!("… ({} more bytes)", s.len() - i));
            break;
        }
    }
    out
}

/// A stdout or stderr that keeps the last [`PIPE_TAIL_BYTES`] bytes written and counts the rest.
/// Unlike wasmtime-wasi's `MemoryOutputPipe`, a full pipe does not trap the guest: a plugin that
/// writes a lot and then panics still shows its panic message.
#[derive(Debug, Clone)]
pub(crate) struct TailPipe {
    inner: Arc<Mutex<Tail>>,
}

#[derive(Debug)]
struct Tail {
    buf: VecDeque<u8>,
    capacity: usize,
    dropped: u64,
}

impl TailPipe {
    pub fn new(capacity: usize) -> Self {
        TailPipe { inner: Arc::new(Mutex::new(Tail { buf: VecDeque::new(), capacity, dropped: 0 })) }
    }

    fn write_bytes(&self, bytes: &[u8]) {
        let mut t = self.inner.lock().unwrap_or_else(PoisonError::into_inner);
        let cap = t.capacity;
        let bytes = if bytes.len() > cap {
            t.dropped += (bytes.len() - cap) as u64;
            &bytes[bytes.len() - cap..]
        } else {
            bytes
        };
        let over = (t.buf.len() + bytes.len()).saturating_sub(cap);
        t.buf.drain(..over);
        t.dropped += over as u64;
        t.buf.extend(bytes);
    }

    /// The tail as text (escaped; invalid UTF-8 replaced) and the count of bytes dropped before it.
    pub fn contents(&self) -> (String, u64) {
        let t = self.inner.lock().unwrap_or_else(PoisonError::into_inner);
        let (a, b) = t.buf.as_slices();
        let bytes = [a, b].concat();
        let mut text = String::from_utf8_lossy(&bytes).into_owned();
        if t.dropped > 0 {
            // The cut may have split a line (or a character): start at the next full line.
            if let Some(nl) = text.find('\n') {
                text.drain(..=nl);
            }
        }
        (escape(&text), t.dropped)
    }
}

impl IsTerminal for TailPipe {
    fn is_terminal(&self) -> bool {
        false
    }
}

impl StdoutStream for TailPipe {
    fn p2_stream(&self) -> Box<dyn OutputStream> {
        Box::new(self.clone())
    }

    fn async_stream(&self) -> Box<dyn tokio::io::AsyncWrite + Send + Sync> {
        Box::new(self.clone())
    }
}

impl OutputStream for TailPipe {
    fn write(&mut self, bytes: Bytes) -> StreamResult<()> {
        self.write_bytes(&bytes);
        Ok(())
    }

    fn flush(&mut self) -> StreamResult<()> {
        Ok(())
    }

    fn check_write(&mut self) -> StreamResult<usize> {
        // Always ready; what does not fit is dropped from the front.
        Ok(PIPE_TAIL_BYTES)
    }
}

#[wasmtime_wasi::async_trait]
impl Pollable for TailPipe {
    async fn ready(&mut self) {}
}

impl tokio::io::AsyncWrite for TailPipe {
    fn poll_write(self: Pin<&mut Self>, _cx: &mut Context<'_>, buf: &[u8]) -> Poll<io::Result<usize>> {
        self.write_bytes(buf);
        Poll::Ready(Ok(buf.len()))
    }

    fn poll_flush(self: Pin<&mut Self>, _cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        Poll::Ready(Ok(()))
    }

    fn poll_shutdown(self: Pin<&mut Self>, _cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        Poll::Ready(Ok(()))
    }
}
