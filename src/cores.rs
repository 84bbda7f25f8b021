//! How many threads "one per core" is: the one place the machine's parallelism is asked,
//! so that every command, the server and Python mean the same by a thread count of 0.

/// `threads`, or one per core when it is 0 (1 when the machine cannot say).
pub fn threads_or_cores(threads: usize) -> usize {
    if threads > 0 {
        return threads;
    }
    std::thread::available_parallelism().map_or(1, |n| n.get())
}
