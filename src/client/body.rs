//! Every HTTP body mcp-pin reads, from an MCP server or an authorization server, goes through
//! [`bounded`]: each chunk is counted as it arrives, against the body's own cap and (while a
//! server's surface is read) against the surface's `max_listing_bytes`, so nothing past a cap is
//! ever in memory. [`read`] collects a whole body that way, within a deadline.

use std::sync::Arc;

use bytes::Bytes;
use futures::stream::{Stream, StreamExt};

use super::capture::{size_words, Capture, OverBudget};

/// An error and its causes, each said once: `a: b: c`.
pub fn error_chain(e: &(dyn std::error::Error + 'static)) -> String {
    let mut parts: Vec<String> = vec![e.to_string()];
    let mut source = e.source();
    while let Some(s) = source {
        let text = s.to_string();
        if !parts.iter().any(|p| p.contains(&text)) {
            parts.push(text);
        }
        source = s.source();
    }
    parts.join(": ")
}

/// How far one body may go.
#[derive(Clone)]
pub struct Meter {
    /// What the body is, for messages ("the authorization server's metadata at https://…").
    pub what: String,
    /// The most bytes this one body may have.
    pub max: usize,
    /// The session whose surface this body belongs to: its bytes count against
    /// `max_listing_bytes` too.
    pub surface: Option<Arc<Capture>>,
}

impl Meter {
    pub fn new(what: impl Into<String>, max: usize) -> Meter {
        Meter { what: what.into(), max, surface: None }
    }

    /// Also count against the surface's cap of `capture`'s session.
    pub fn counting(mut self, capture: &Arc<Capture>) -> Meter {
        self.surface = Some(capture.clone());
        self
    }
}

#[derive(Debug, Clone, thiserror::Error)]
pub enum BodyError {
    #[error("{what} is larger than {}; mcp-pin stopped reading it", size_words(*max))]
    TooLarge { what: String, max: usize },
    #[error("{what}: the server sent more than {} for its surface (`max_listing_bytes`)", size_words(.over.cap))]
    Surface { what: String, over: OverBudget },
    #[error("{what} did not arrive in time")]
    Timeout { what: String },
    #[error("reading {what}: {why}")]
    Read { what: String, why: String },
}

/// `body`'s chunks, each counted before it is passed on: an error (and the end of the stream)
/// as soon as the body passes its cap or the surface's.
pub fn bounded<E: std::error::Error + 'static>(
    body: impl Stream<Item = Result<Bytes, E>> + Send + 'static,
    meter: Meter,
) -> impl Stream<Item = Result<Bytes, BodyError>> + Send + 'static {
    let mut seen = 0usize;
    let mut failed = false;
    body.map(move |chunk| {
        let chunk = chunk.map_err(|e| BodyError::Read { what: meter.what.clone(), why: error_chain(&e) })?;
        seen = seen.saturating_add(chunk.len());
        if seen > meter.max {
            return Err(BodyError::TooLarge { what: meter.what.clone(), max: meter.max });
        }
        if let Some(c) = &meter.surface {
            c.charge(chunk.len()).map_err(|over| BodyError::Surface { what: meter.what.clone(), over })?;
        }
        Ok(chunk)
    })
    .take_while(move |r| {
        // The first error ends the stream: nothing after it is read.
        let go = !failed;
        failed |= r.is_err();
        std::future::ready(go)
    })
}

/// A whole response body, read through [`bounded`] before `deadline`. A `Content-Length` over
/// the cap is refused before anything is read.
pub async fn read(
    resp: reqwest::Response,
    meter: Meter,
    deadline: Option<tokio::time::Instant>,
) -> Result<Vec<u8>, BodyError> {
    if resp.content_length().is_some_and(|n| n > meter.max as u64) {
        return Err(BodyError::TooLarge { what: meter.what, max: meter.max });
    }
    let what = meter.what.clone();
    let collect = async move {
        let mut out = Vec::new();
        let mut chunks = std::pin::pin!(bounded(resp.bytes_stream(), meter));
        while let Some(chunk) = chunks.next().await {
            out.extend_from_slice(&chunk?);
        }
        Ok(out)
    };
    match deadline {
        Some(d) => tokio::time::timeout_at(d, collect).await.unwrap_or(Err(BodyError::Timeout { what })),
        None => collect.await,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn chunks(n: usize, size: usize) -> impl Stream<Item = Result<Bytes, std::io::Error>> + Send + 'static {
        futures::stream::iter((0..n).map(move |_| Ok(Bytes::from(vec![b'x'; size]))))
    }

    #[tokio::test]
    async fn body_stops_at_the_first_chunk_past_its_cap() {
        let got: Vec<_> = bounded(chunks(100, 10), Meter::new("the body", 35)).collect().await;
        assert_eq!(got.len(), 4, "three chunks fit, the fourth passes the cap and ends the stream");
        assert!(matches!(&got[3], Err(BodyError::TooLarge { max: 35, .. })));
        assert_eq!(
            got[3].as_ref().unwrap_err().to_string(),
            "the body is larger than 35 bytes; mcp-pin stopped reading it"
        );
    }

    #[tokio::test]
    async fn body_counts_against_the_surface_across_bodies_until_the_listing_ends() {
        let capture = Arc::new(Capture::with_budget(50));
        let meter = Meter::new("a page", 1 << 20).counting(&capture);
        let first: Vec<_> = bounded(chunks(3, 10), meter.clone()).collect().await;
        assert!(first.iter().all(Result::is_ok));
        let second: Vec<_> = bounded(chunks(3, 10), meter.clone()).collect().await;
        assert!(matches!(second.last(), Some(Err(BodyError::Surface { .. }))), "60 bytes in all pass 50");
        assert!(capture.over_budget().is_some());
        let capture = Arc::new(Capture::with_budget(50));
        capture.end_listing();
        let after: Vec<_> = bounded(chunks(10, 10), Meter::new("a call", 1 << 20).counting(&capture)).collect().await;
        assert!(after.iter().all(Result::is_ok), "after the listing, only the body's own cap applies");
    }
}
