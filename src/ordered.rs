//! Work on several threads, results in input order: how a fleet's hosts are checked on every
//! core while the report still lists them in the order of the files, as a single thread would.

use std::collections::BTreeMap;
use std::panic::{AssertUnwindSafe, catch_unwind, resume_unwind};
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{Condvar, Mutex, PoisonError, mpsc};
use std::thread;

/// How far workers may run ahead of `sink`, per thread. Results waiting for an earlier, slower
/// item are held in memory, so this bounds memory whatever the hosts' sizes and speeds.
const AHEAD_PER_THREAD: usize = 4;

/// Calls `work` on every item on up to `threads` threads, and `sink` on each result in the
/// order of `items`, on the calling thread. The first error from `sink` stops the work (items
/// not yet started are not started) and is returned. A panic in `work` is resumed on the
/// calling thread, after the other workers have stopped.
///
/// The calling thread is one of the `threads`: it works on items too and, between them, hands
/// the results that are due to `sink`. A separate collecting thread would make one thread more
/// than there are cores, and the scheduler would keep swapping it with a worker (measured on 2
/// cores: twice the system time, and 15 to 25 % more wall-clock time).
pub fn for_each_in_order<T: Sync, R: Send, E>(
    items: &[T],
    threads: usize,
    work: impl Fn(&T) -> R + Sync,
    mut sink: impl FnMut(R) -> Result<(), E>,
) -> Result<(), E> {
    if threads <= 1 || items.len() <= 1 {
        return items.iter().try_for_each(|item| sink(work(item)));
    }
    let window = threads * AHEAD_PER_THREAD;
    let next = AtomicUsize::new(0);
    let stop = AtomicBool::new(false);
    // How many results `sink` has taken, and a signal when it moves.
    let sunk = (Mutex::new(0usize), Condvar::new());
    thread::scope(|scope| {
        let (tx, rx) = mpsc::channel();
        for _ in 1..threads.min(items.len()) {
            let tx = tx.clone();
            let (next, stop, sunk, work) = (&next, &stop, &sunk, &work);
            scope.spawn(move || {
                loop {
                    let i = next.fetch_add(1, Ordering::Relaxed);
                    if i >= items.len() {
                        break;
                    }
                    {
                        let mut taken = sunk.0.lock().unwrap_or_else(PoisonError::into_inner);
                        while i >= *taken + window && !stop.load(Ordering::Relaxed) {
                            taken = sunk.1.wait(taken).unwrap_or_else(PoisonError::into_inner);
                        }
                    }
                    if stop.load(Ordering::Relaxed) {
                        break;
                    }
                    let result = catch_unwind(AssertUnwindSafe(|| work(&items[i])));
                    let panicked = result.is_err();
                    if tx.send((i, result)).is_err() || panicked {
                        break;
                    }
                }
            });
        }
        drop(tx);
        let halt = || {
            stop.store(true, Ordering::Relaxed);
            let _guard = sunk.0.lock().unwrap_or_else(PoisonError::into_inner);
            sunk.1.notify_all();
        };
        let mut waiting = BTreeMap::new();
        let mut want = 0;
        while want < items.len() {
            while let Ok((i, result)) = rx.try_recv() {
                waiting.insert(i, result);
            }
            let before = want;
            while let Some(result) = waiting.remove(&want) {
                let outcome = match result {
                    Ok(r) => sink(r),
                    Err(panic) => {
                        halt();
                        resume_unwind(panic);
                    }
                };
                if let Err(e) = outcome {
                    halt();
                    return Err(e);
                }
                want += 1;
            }
            if want > before {
                *sunk.0.lock().unwrap_or_else(PoisonError::into_inner) = want;
                sunk.1.notify_all();
                continue;
            }
            // Nothing due: start the next item here, or, when every item has been started,
            // wait for a worker's. The item `want` is never held back by the window, so a
            // worker has it and will send it.
            let i = next.fetch_add(1, Ordering::Relaxed);
            if i < items.len() {
                waiting.insert(i, catch_unwind(AssertUnwindSafe(|| work(&items[i]))));
            } else {
                let (i, result) = rx.recv().expect("a worker holds the item due next");
                waiting.insert(i, result);
            }
        }
        Ok(())
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::atomic::AtomicUsize;

    #[test]
    fn results_come_in_input_order_whatever_order_they_finish_in() {
        let items: Vec<u64> = (0..200).collect();
        let mut seen = vec![];
        // Early items take longest, so later ones finish first.
        let work = |&i: &u64| {
            let mut x = 0u64;
            for k in 0..(200 - i) * 2_000 {
                x = x.wrapping_add(k ^ i);
            }
            std::hint::black_box(x);
            i * 10
        };
        for_each_in_order(&items, 4, work, |r| -> Result<(), ()> {
            seen.push(r);
            Ok(())
        })
        .unwrap();
        assert_eq!(seen, items.iter().map(|i| i * 10).collect::<Vec<_>>());
    }

    #[test]
    fn the_first_error_in_order_stops_the_work() {
        let items: Vec<usize> = (0..10_000).collect();
        let started = AtomicUsize::new(0);
        let mut seen = vec![];
        let err = for_each_in_order(
            &items,
            3,
            |&i| {
                started.fetch_add(1, Ordering::Relaxed);
                i
            },
            |r| {
                if r == 7 {
                    return Err(format!("bad {r}"));
                }
                seen.push(r);
                Ok(())
            },
        )
        .unwrap_err();
        assert_eq!(err, "bad 7");
        assert_eq!(seen, (0..7).collect::<Vec<_>>());
        // Workers run a bounded distance ahead, so most of the items were never started.
        assert!(started.load(Ordering::Relaxed) <= 8 + 3 * AHEAD_PER_THREAD + 3);
    }

    #[test]
    fn a_panic_in_work_reaches_the_caller() {
        let items: Vec<usize> = (0..100).collect();
        let caught = catch_unwind(AssertUnwindSafe(|| {
            for_each_in_order(
                &items,
                2,
                |&i| {
                    assert!(i != 50, "item fifty");
                    i
                },
                |_| -> Result<(), ()> { Ok(()) },
            )
        }));
        let panic = caught.unwrap_err();
        assert_eq!(panic.downcast_ref::<&str>(), Some(&"item fifty"));
    }

    #[test]
    fn one_thread_runs_in_place() {
        let mut seen = vec![];
        for_each_in_order(
            &[1, 2, 3],
            1,
            |&i| i + 1,
            |r| -> Result<(), ()> {
                seen.push(r);
                Ok(())
            },
        )
        .unwrap();
        assert_eq!(seen, [2, 3, 4]);
    }
}
