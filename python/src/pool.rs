//! [`Pool`]: sessions shared by the Python threads that search one index.
//!
//! A session (its engine and buffers) serves one search at a time. The pool lends an idle one,
//! opens another while fewer than `max` exist, and otherwise makes the caller wait until one
//! comes back, so searches from several threads run at once up to `max`, as the server's
//! workers do, and every session shares the index and the page cache it was opened with.

use std::sync::{Condvar, Mutex, MutexGuard};

/// Sessions lent to one search at a time; see the module documentation.
pub struct Pool<T> {
    state: Mutex<State<T>>,
    returned: Condvar,
    max: usize,
}

struct State<T> {
    idle: Vec<T>,
    /// Sessions that exist: idle, lent, or being opened.
    count: usize,
    closed: bool,
}

/// Why no session could be lent.
#[derive(Debug)]
pub enum Refused<E> {
    /// The pool was closed.
    Closed,
    /// Opening a new session failed.
    Open(E),
}

/// A session on loan; it goes back to the pool when dropped (also on a panic).
pub struct Lent<'p, T> {
    pool: &'p Pool<T>,
    item: Option<T>,
}

impl<T> Pool<T> {
    /// A pool holding `first` that opens at most `max` sessions in all.
    pub fn new(first: T, max: usize) -> Pool<T> {
        assert!(max >= 1, "a pool holds at least one session");
        Pool {
            state: Mutex::new(State {
                idle: vec![first],
                count: 1,
                closed: false,
            }),
            returned: Condvar::new(),
            max,
        }
    }

    fn lock(&self) -> MutexGuard<'_, State<T>> {
        // A panic while the lock is held leaves the state consistent (no step is half done).
        self.state.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Lends an idle session, opens one with `open` if fewer than `max` exist, or waits.
    pub fn take<E>(&self, open: impl FnOnce() -> Result<T, E>) -> Result<Lent<'_, T>, Refused<E>> {
        let mut state = self.lock();
        loop {
            if state.closed {
                return Err(Refused::Closed);
            }
            if let Some(item) = state.idle.pop() {
                return Ok(Lent {
                    pool: self,
                    item: Some(item),
                });
            }
            if state.count < self.max {
                break;
            }
            state = self.returned.wait(state).unwrap_or_else(|e| e.into_inner());
        }
        state.count += 1;
        drop(state);
        match open() {
            Ok(item) => Ok(Lent {
                pool: self,
                item: Some(item),
            }),
            Err(error) => {
                self.lock().count -= 1;
                self.returned.notify_one();
                Err(Refused::Open(error))
            }
        }
    }

    /// Calls `inspect` with an idle session without lending it, if one is idle.
    #[cfg(test)]
    pub fn with_idle<R>(&self, inspect: impl FnOnce(&T) -> R) -> Option<R> {
        self.lock().idle.last().map(inspect)
    }

    /// Drops the idle sessions and refuses new loans; sessions on loan are dropped when they
    /// come back. Returns the sessions dropped now.
    pub fn close(&self) -> Vec<T> {
        let mut state = self.lock();
        state.closed = true;
        let idle = std::mem::take(&mut state.idle);
        state.count -= idle.len();
        drop(state);
        self.returned.notify_all();
        idle
    }

    /// Whether [`Pool::close`] was called.
    pub fn is_closed(&self) -> bool {
        self.lock().closed
    }

    /// Sessions that exist now (idle or lent).
    pub fn count(&self) -> usize {
        self.lock().count
    }

    /// Most sessions the pool opens.
    pub fn max(&self) -> usize {
        self.max
    }
}

impl<T> std::ops::Deref for Lent<'_, T> {
    type Target = T;

    fn deref(&self) -> &T {
        self.item
            .as_ref()
            .expect("a loan holds its session until dropped")
    }
}

impl<T> std::ops::DerefMut for Lent<'_, T> {
    fn deref_mut(&mut self) -> &mut T {
        self.item
            .as_mut()
            .expect("a loan holds its session until dropped")
    }
}

impl<T> Drop for Lent<'_, T> {
    fn drop(&mut self) {
        let Some(item) = self.item.take() else {
            return;
        };
        let mut state = self.pool.lock();
        if state.closed {
            state.count -= 1;
            drop(state);
            drop(item);
        } else {
            state.idle.push(item);
            drop(state);
        }
        self.pool.returned.notify_one();
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::atomic::{AtomicUsize, Ordering};
    use std::sync::{Arc, Barrier};

    #[test]
    fn lends_idle_sessions_first_and_opens_up_to_max() {
        let pool = Pool::new(0u32, 2);
        let opened = AtomicUsize::new(0);
        let open = || -> Result<u32, ()> { Ok(opened.fetch_add(1, Ordering::Relaxed) as u32 + 1) };
        let a = pool.take(open).unwrap();
        assert_eq!(*a, 0, "the first session is lent before any is opened");
        let b = pool.take(open).unwrap();
        assert_eq!(*b, 1);
        assert_eq!(pool.count(), 2);
        drop(a);
        let c = pool.take(open).unwrap();
        assert_eq!(*c, 0, "a returned session is lent again");
        assert_eq!(opened.load(Ordering::Relaxed), 1);
    }

    #[test]
    fn a_failed_open_gives_its_place_back() {
        let pool = Pool::new(0u32, 2);
        let _a = pool.take(|| Ok::<_, &str>(9)).unwrap();
        assert!(matches!(
            pool.take(|| Err::<u32, _>("no engine")),
            Err(Refused::Open("no engine"))
        ));
        assert_eq!(pool.count(), 1);
        assert_eq!(*pool.take(|| Ok::<_, &str>(7)).unwrap(), 7);
    }

    #[test]
    fn at_max_a_caller_waits_for_a_session_to_come_back() {
        let pool = Arc::new(Pool::new(0u32, 1));
        let in_use = Arc::new(AtomicUsize::new(0));
        let most = Arc::new(AtomicUsize::new(0));
        let start = Arc::new(Barrier::new(4));
        let threads: Vec<_> = (0..4)
            .map(|_| {
                let (pool, in_use, most, start) =
                    (pool.clone(), in_use.clone(), most.clone(), start.clone());
                std::thread::spawn(move || {
                    start.wait();
                    for _ in 0..50 {
                        let mut lent = pool.take(|| Err::<u32, ()>(())).unwrap();
                        let now = in_use.fetch_add(1, Ordering::SeqCst) + 1;
                        most.fetch_max(now, Ordering::SeqCst);
                        *lent += 1;
                        in_use.fetch_sub(1, Ordering::SeqCst);
                    }
                })
            })
            .collect();
        for thread in threads {
            thread.join().unwrap();
        }
        assert_eq!(
            most.load(Ordering::SeqCst),
            1,
            "never two loans of one session"
        );
        assert_eq!(
            pool.with_idle(|&n| n),
            Some(200),
            "every loan used the one session"
        );
    }

    #[test]
    fn a_closed_pool_refuses_and_drops_returned_sessions() {
        let pool = Pool::new(0u32, 3);
        let lent = pool.take(|| Ok::<_, ()>(1)).unwrap();
        assert_eq!(
            pool.close(),
            vec![] as Vec<u32>,
            "the first session is on loan"
        );
        assert!(matches!(pool.take(|| Ok::<_, ()>(2)), Err(Refused::Closed)));
        drop(lent);
        assert_eq!(pool.count(), 0);
        assert!(pool.is_closed());
    }
}
