//! Collecting from many servers at once: bounded concurrency, a deadline per server, and one
//! server's failure — down, refusing, timing out, resetting mid-result, even a panic inside the
//! driver on a malformed reply — kept to that server.
//!
//! Results are handed over in the order of the jobs (the inventory's, the command line's),
//! whatever order the servers answer in, so a report reads the same from run to run. Memory
//! stays flat in the size of the fleet: no job starts more than [`window`] jobs ahead of the
//! first one not handed over yet, so at most that many results wait for a slow server.

use std::collections::{BTreeMap, HashMap};
use std::time::Duration;

use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};
use spindle_core::facts::Snapshot;
use spindle_core::untrusted;
use tokio::task::JoinSet;

use spindle_collectors::sql::target::Target;
use spindle_collectors::sql::{CollectError, Options, collect};

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

/// Collects every job, at most `concurrency` at a time, calling `done` with each job's index
/// and outcome in job order. A `done` error stops the run (the report could not be written).
pub fn run<E>(
    jobs: &[Job],
    concurrency: usize,
    progress: bool,
    done: impl FnMut(usize, Result<Snapshot, CollectError>) -> Result<(), E>,
) -> Result<(), E> {
    run_with(
        jobs,
        concurrency,
        progress,
        |job: Job| async move { collect(&job.target, &job.options).await },
        done,
    )
}

/// One server, with the fleet's protections: the same deadline, and a driver panic becomes
/// the server's error.
pub fn collect_one(job: &Job) -> Result<Snapshot, CollectError> {
    let mut outcome = None;
    let _: Result<(), ()> = run(std::slice::from_ref(job), 1, false, |_, r| {
        outcome = Some(r);
        Ok(())
    });
    outcome.unwrap_or_else(|| Err(CollectError("no result".into())))
}

/// [`run`] with the collection itself given: the tests give one that panics.
fn run_with<E, F, Fut>(
    jobs: &[Job],
    concurrency: usize,
    progress: bool,
    collect_one: F,
    mut done: impl FnMut(usize, Result<Snapshot, CollectError>) -> Result<(), E>,
) -> Result<(), E>
where
    F: Fn(Job) -> Fut,
    Fut: std::future::Future<Output = Result<Snapshot, CollectError>> + Send + 'static,
{
    // A check of files only starts no runtime (its threads would only add to the peak memory).
    if jobs.is_empty() {
        return Ok(());
    }
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
        // Outcomes that came in before an earlier job's, and the first job not handed over yet.
        let mut ahead: BTreeMap<usize, Result<Snapshot, CollectError>> = BTreeMap::new();
        let mut handed = 0;
        let window = window(concurrency);
        loop {
            while tasks.len() < concurrency.max(1) && next < jobs.len() && next < handed + window {
                let job = jobs[next].clone();
                let deadline = job.deadline();
                let work = collect_one(job);
                let handle = tasks.spawn(async move {
                    match tokio::time::timeout(deadline, work).await {
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
                // The error may quote the server: the bar draws on the terminal.
                let (label, e) = (untrusted::name(&jobs[i].label), e.to_string());
                bar.set_message(format!("{label}: {}", untrusted::message(&e)));
            }
            ahead.insert(i, outcome);
            while let Some(outcome) = ahead.remove(&handed) {
                done(handed, outcome)?;
                handed += 1;
            }
        }
        Ok(())
    });
    bar.finish_and_clear();
    result
}

/// How far past the first job not yet handed over a job may start: enough that one slow
/// server does not idle the others at once, few enough that the results waiting behind it
/// (a snapshot each) stay a bounded amount of memory.
fn window(concurrency: usize) -> usize {
    concurrency.max(1) * 8
}

fn panic_text(p: Box<dyn std::any::Any + Send>) -> String {
    p.downcast_ref::<&str>()
        .map(|s| s.to_string())
        .or_else(|| p.downcast_ref::<String>().cloned())
        .unwrap_or_else(|| "panic".into())
}

#[cfg(test)]
mod tests {
    use std::time::Duration;

    use super::*;
    use spindle_collectors::sql::connect::{Auth, Encryption, Settings};

    fn job(i: usize) -> Job {
        Job {
            target: Target::parse(&format!("sql{i:02}")).unwrap(),
            label: format!("sql{i:02}"),
            options: Options {
                settings: Settings {
                    auth: Auth::Integrated,
                    encryption: Encryption::Required,
                    connect_timeout: Duration::from_secs(1),
                    query_timeout: Duration::from_secs(1),
                },
                sample: None,
            },
        }
    }

    #[test]
    fn a_panic_in_one_collection_is_that_servers_error() {
        let jobs: Vec<Job> = (0..20).map(job).collect();
        let mut outcomes = vec![None; jobs.len()];
        let r: Result<(), ()> = run_with(
            &jobs,
            4,
            false,
            |job: Job| async move {
                if job.label == "sql07" {
                    panic!("assertion failed: header.length >= 8");
                }
                Ok(Snapshot {
                    host: spindle_core::facts::Host { name: job.label, ..Default::default() },
                    ..Default::default()
                })
            },
            |i, outcome| {
                outcomes[i] = Some(outcome);
                Ok(())
            },
        );
        assert!(r.is_ok());
        for (i, o) in outcomes.iter().enumerate() {
            match o.as_ref().expect("every job reports") {
                Ok(s) => assert_eq!(s.host.name, format!("sql{i:02}")),
                Err(e) => {
                    assert_eq!(i, 7);
                    assert!(e.0.contains("the TDS driver failed") && e.0.contains("header.length"), "{e}");
                }
            }
        }
        assert!(outcomes[7].as_ref().unwrap().is_err());
    }

    #[test]
    fn outcomes_are_handed_over_in_job_order_whatever_order_they_complete_in() {
        let jobs: Vec<Job> = (0..40).map(job).collect();
        let mut order = vec![];
        let r: Result<(), ()> = run_with(
            &jobs,
            4,
            false,
            |job: Job| async move {
                // Earlier servers answer later: without reordering, the order would be reversed
                // within each batch.
                let i: u64 = job.label[3..].parse().unwrap();
                tokio::time::sleep(Duration::from_millis(40 - i)).await;
                Err(CollectError(job.label))
            },
            |i, outcome| {
                assert_eq!(outcome.unwrap_err().0, format!("sql{i:02}"));
                order.push(i);
                Ok(())
            },
        );
        assert!(r.is_ok());
        assert_eq!(order, (0..40).collect::<Vec<_>>());
    }

    #[test]
    fn concurrency_is_bounded() {
        use std::sync::Arc;
        use std::sync::atomic::{AtomicUsize, Ordering};
        let jobs: Vec<Job> = (0..30).map(job).collect();
        let (now, peak) = (Arc::new(AtomicUsize::new(0)), Arc::new(AtomicUsize::new(0)));
        let r: Result<(), ()> = run_with(
            &jobs,
            5,
            false,
            |_job: Job| {
                let (now, peak) = (now.clone(), peak.clone());
                async move {
                    let n = now.fetch_add(1, Ordering::SeqCst) + 1;
                    peak.fetch_max(n, Ordering::SeqCst);
                    tokio::task::yield_now().await;
                    now.fetch_sub(1, Ordering::SeqCst);
                    Err(CollectError("down".into()))
                }
            },
            |_, _| Ok(()),
        );
        assert!(r.is_ok());
        assert!(peak.load(Ordering::SeqCst) <= 5, "peak {}", peak.load(Ordering::SeqCst));
    }
}
