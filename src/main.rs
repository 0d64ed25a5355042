// unsafe here: mallopt tunes the allocator (see `tune_allocator`).
#![allow(unsafe_code)]
fn main() {
    tune_allocator();
    std::process::exit(privacy_audit::cli::main());
}

/// A scan allocates and frees a file-sized buffer per file. glibc serves those from
/// fresh `mmap`s and trims its heap after each free, so every file's pages were
/// faulted in anew: a sixth of the run in the kernel. Keeping buffers up to 32 MiB on
/// the heap (glibc's ceiling for this setting) and trimming only past 128 MiB costs a
/// few MiB of resident memory and removes nearly all of it.
///
/// One arena for every thread: with one per worker, each kept its own high-water mark
/// of freed buffers (a large document read in one, its pieces detected in another),
/// 8–10 MiB more resident memory on two workers; the per-thread caches in front of the
/// arena serve the small allocations that would contend for its lock.
fn tune_allocator() {
    #[cfg(all(target_os = "linux", target_env = "gnu"))]
    // SAFETY: mallopt only adjusts allocator parameters; it is called before any thread
    // starts, and a rejected value leaves the default in place.
    unsafe {
        libc::mallopt(libc::M_MMAP_THRESHOLD, 32 << 20);
        libc::mallopt(libc::M_TRIM_THRESHOLD, 128 << 20);
        libc::mallopt(libc::M_ARENA_MAX, 1);
    }
}
