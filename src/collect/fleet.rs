//! Collecting from many servers at once: bounded concurrency, a deadline per server, and one
//! server's failure — down, refusing, timing out, resetting mid-result, even a panic inside the
//! driver on a malformed reply — kept to that server.
//!
//! Results are handed over as they complete, so memory stays flat in the size of the fleet:
//! nothing waits for the slowest server.

use std::collections::HashMap;
use std::time::Duration;

use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};
use spindle_core::facts::Snapshot;
use tokio::task::JoinSet;

use super::sql::target::Target;
use super::sql::{CollectError, Options, collect};

/// One server to collect.
#[derive(Debug, Clone)]
pub struct Job {
    pub target: Target,
    /// The server as the user named it.
    pub label: String,
    pub options: Options,
}

impl Job {
    /// The longest a whole collection may take: connecting, every query's answer, the sample.
    /// The driver bounds each wait; this bounds a server that answers, but slowly, forever.
    fn deadline(&self) -> Duration {
        let s = &self.options.settings;
        s.connect_timeout * 2 + s.query_timeout * 12 + self.options.sample.unwrap_or_default()
    }
}

pub const DEFAULT_CONCURRENCY: usize = 16;

/// Collects every job, at most `concurrency` at a time, calling `done` with each job's index
/// and outcome as it completes. A `done` error stops the run (the report could not be written).
pub fn run<E>(
    jobs: &[Job],
    concurrency: usize,
    progress: bool,
    mut done: impl FnMut(usize, Result<Snapshot, CollectError>) -> Result<(), E>,
) -> Result<(), E> {
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .expect("tokio runtime");
    let bar = if progress {
        let bar = ProgressBar::with_draw_target(Some(jobs.len() as u64), ProgressDrawTarget::stderr());
        bar.set_style(
            ProgressStyle::with_template("{spinner} collecting {pos}/{len} servers [{elapsed}] {wide_msg}")
                .unwrap_or_else(|_| ProgressStyle::default_bar()),
        );
        bar
    } else {
        ProgressBar::hidden()
    };
    let result = runtime.block_on(async {
        let mut tasks = JoinSet::new();
        let mut index_of = HashMap::new();
        let mut next = 0;
        loop {
            while tasks.len() < concurrency.max(1) && next < jobs.len() {
                let job = jobs[next].clone();
                let handle = tasks.spawn(async move {
                    let deadline = job.deadline();
                    match tokio::time::timeout(deadline, collect(&job.target, &job.options)).await {
                        Ok(r) => r,
                        Err(_) => Err(CollectError(format!(
                            "gave up after {} s without a complete answer",
                            deadline.as_secs()
                        ))),
                    }
                });
                index_of.insert(handle.id(), next);
                next += 1;
            }
            let Some(joined) = tasks.join_next_with_id().await else { break };
            let (id, outcome) = match joined {
                Ok((id, r)) => (id, r),
                Err(e) => {
                    let id = e.id();
                    let why = if e.is_panic() {
                        format!(
                            "the TDS driver failed on the server's reply ({})",
                            panic_text(e.into_panic())
                        )
                    } else {
                        "collection cancelled".to_string()
                    };
                    (id, Err(CollectError(why)))
                }
            };
            let i = index_of.remove(&id).expect("every task is indexed");
            bar.inc(1);
            if let Err(e) = &outcome {
                bar.set_message(format!("{}: {}", jobs[i].label, e));
            }
            done(i, outcome)?;
        }
        Ok(())
    });
    bar.finish_and_clear();
    result
}

fn panic_text(p: Box<dyn std::any::Any + Send>) -> String {
    p.downcast_ref::<&str>()
        .map(|s| s.to_string())
        .or_else(|| p.downcast_ref::<String>().cloned())
        .unwrap_or_else(|| "panic".into())
}
