//! The server's shared memory: the state words every backend mints from, and the mark that
//! keeps a restart from repeating an ID.
//!
//! # The mark
//!
//! `snowmint.mark` in the data directory holds a Unix-millisecond time above every ID any
//! backend has returned. A backend returns an ID only once the mark in shared memory is above
//! the ID's time; when it is not, the backend raises it: under the extension's lock, it
//! writes `time + snowmint.mark_interval_ms` to the file durably
//! ([`snowmint::mark::replace_durably`]: a temporary file, `fsync`, rename, `fsync` of the
//! directory), then publishes it. So the file is written once per interval of ID time, never
//! per ID, and costs no WAL. When the server starts, the postmaster reads the file before any
//! backend runs, and every generator resumes above it: whatever the clock reads then, no ID
//! at or below the mark is minted again. A crash loses at most the unused part of an
//! interval.

use std::sync::atomic::{AtomicU64, Ordering};

use pgrx::pg_sys;
use snowmint::generator::SharedWord;

/// The name of the shared memory block and of the lock tranche.
const NAME: &std::ffi::CStr = c"snowmint";

/// The mark file's name, in the data directory.
pub(crate) const MARK_FILE: &str = "snowmint.mark";

/// What no mark file means: a first start.
const NO_MARK: u64 = 0;

/// What a mark file that could not be read leaves in [`Shared::resume_ms`]: minting is
/// refused, with the reason kept in [`Shared::mark_problem`].
const BAD_MARK: u64 = u64::MAX;

/// The block every backend maps, as the postmaster laid it out. All zeros is valid for every
/// field; the postmaster then sets the two marks.
#[repr(C)]
pub(crate) struct Shared {
    /// The state word of `snowmint_id()`.
    pub(crate) ids: SharedWord,
    /// The state word of `snowmint_uuidv7()`: 48 bits of Unix milliseconds and a 16-bit
    /// counter.
    pub(crate) uuids: SharedWord,
    /// The mark read from the file when the server started ([`NO_MARK`], [`BAD_MARK`]).
    pub(crate) resume_ms: AtomicU64,
    /// The mark on disk now: every ID returned is below it.
    pub(crate) mark_ms: AtomicU64,
    /// Why the mark file could not be read, when it could not: its first bytes.
    mark_problem: [AtomicU64; 32],
    /// The lock writers of the mark file take.
    lock: AtomicU64,
}

/// This process's view of the block, set by the startup hook (`null` until then, and in a
/// process that did not preload the library).
static mut SHARED: *const Shared = std::ptr::null();

static mut PREV_REQUEST_HOOK: pg_sys::shmem_request_hook_type = None;
static mut PREV_STARTUP_HOOK: pg_sys::shmem_startup_hook_type = None;

/// Installs the hooks that reserve and lay out the block. Called from `_PG_init` in the
/// postmaster, while it loads `shared_preload_libraries`.
pub(crate) fn install_hooks() {
    // SAFETY: `_PG_init` runs in the postmaster's one thread, before any backend: nothing else
    // reads or writes the hook variables now.
    unsafe {
        PREV_REQUEST_HOOK = pg_sys::shmem_request_hook;
        pg_sys::shmem_request_hook = Some(request);
        PREV_STARTUP_HOOK = pg_sys::shmem_startup_hook;
        pg_sys::shmem_startup_hook = Some(startup);
    }
}

#[pgrx::pg_guard]
unsafe extern "C-unwind" fn request() {
    // SAFETY: called by the postmaster in its shared memory request phase, as the hook
    // variables' contract says; the previous hook first.
    unsafe {
        if let Some(previous) = PREV_REQUEST_HOOK {
            previous();
        }
        pg_sys::RequestAddinShmemSpace(size_of::<Shared>());
        pg_sys::RequestNamedLWLockTranche(NAME.as_ptr(), 1);
    }
}

#[pgrx::pg_guard]
unsafe extern "C-unwind" fn startup() {
    // SAFETY: the startup hook runs in the postmaster once shared memory exists (and in each
    // backend under EXEC_BACKEND), with the previous hook first. `ShmemInitStruct` returns a
    // block of the size requested, aligned to a cache line (past `Shared`'s 64), zeroed by
    // the postmaster on creation; it is initialised once, under `AddinShmemInitLock`.
    unsafe {
        if let Some(previous) = PREV_STARTUP_HOOK {
            previous();
        }
        let init_lock = &raw mut (*pg_sys::MainLWLockArray.add(21)).lock;
        pg_sys::LWLockAcquire(init_lock, pg_sys::LWLockMode::LW_EXCLUSIVE);
        let mut found = false;
        let block = pg_sys::ShmemInitStruct(NAME.as_ptr(), size_of::<Shared>(), &mut found)
            .cast::<Shared>();
        if !found {
            block.write_bytes(0, 1);
            let lock = &raw mut (*pg_sys::GetNamedLWLockTranche(NAME.as_ptr())).lock;
            (*block).lock.store(lock as u64, Ordering::Relaxed);
            let shared = &*block;
            match read_mark() {
                Ok(mark) => {
                    shared.resume_ms.store(mark, Ordering::Relaxed);
                    shared.mark_ms.store(mark, Ordering::Relaxed);
                }
                Err(problem) => {
                    shared.resume_ms.store(BAD_MARK, Ordering::Relaxed);
                    shared.mark_ms.store(BAD_MARK, Ordering::Relaxed);
                    for (slot, chunk) in
                        shared.mark_problem.iter().zip(problem.as_bytes().chunks(8))
                    {
                        let mut bytes = [0; 8];
                        bytes[..chunk.len()].copy_from_slice(chunk);
                        slot.store(u64::from_le_bytes(bytes), Ordering::Relaxed);
                    }
                    pgrx::warning!(
                        "snowmint: {problem}; snowmint_id() and snowmint_uuidv7() refuse to mint until it is fixed"
                    );
                }
            }
        }
        SHARED = block;
        pg_sys::LWLockRelease(init_lock);
    }
}

/// The block, or why this process has none.
pub(crate) fn shared() -> Result<&'static Shared, String> {
    // SAFETY: set once by the startup hook, before any SQL function runs in this process, to
    // a block that lives as long as the server.
    let shared = unsafe { SHARED.as_ref() };
    shared.ok_or_else(|| {
        "snowmint_pg is not loaded at server start; expected shared_preload_libraries = \
         'snowmint_pg' in postgresql.conf (and a restart)"
            .to_owned()
    })
}

impl Shared {
    /// The mark to resume above: `None` on a first start; an error for a mark file that
    /// could not be read when the server started.
    pub(crate) fn resume(&self) -> Result<Option<u64>, String> {
        match self.resume_ms.load(Ordering::Acquire) {
            NO_MARK => Ok(None),
            BAD_MARK => Err(self.mark_problem()),
            mark => Ok(Some(mark)),
        }
    }

    fn mark_problem(&self) -> String {
        let bytes: Vec<u8> = self
            .mark_problem
            .iter()
            .flat_map(|slot| slot.load(Ordering::Relaxed).to_le_bytes())
            .take_while(|byte| *byte != 0)
            .collect();
        String::from_utf8_lossy(&bytes).into_owned()
    }

    /// The mark on disk now: every ID returned has its time below it.
    pub(crate) fn mark(&self) -> u64 {
        self.mark_ms.load(Ordering::Acquire)
    }

    /// Returns once the mark is above `time_ms`, writing it ahead by `interval_ms` if it is
    /// not.
    pub(crate) fn admit(&self, time_ms: u64, interval_ms: u64) -> Result<(), String> {
        // Acquire: pairs with the Release of the store below, after the file was written.
        if time_ms < self.mark_ms.load(Ordering::Acquire) {
            return Ok(());
        }
        self.raise(time_ms, interval_ms)
    }

    #[cold]
    fn raise(&self, time_ms: u64, interval_ms: u64) -> Result<(), String> {
        let lock = self.lock.load(Ordering::Relaxed) as *mut pg_sys::LWLock;
        // SAFETY: the tranche's lock, in shared memory for the server's life; released below
        // on every path (an ERROR raised meanwhile releases it too, as PostgreSQL releases
        // every LWLock on abort).
        unsafe { pg_sys::LWLockAcquire(lock, pg_sys::LWLockMode::LW_EXCLUSIVE) };
        let written = (|| {
            if time_ms < self.mark_ms.load(Ordering::Acquire) {
                return Ok(()); // another backend raised it meanwhile
            }
            let mark = time_ms.saturating_add(interval_ms);
            snowmint::mark::replace_durably(MARK_FILE, format!("{mark}\n").as_bytes())
                .map_err(|e| format!("cannot write the mark file {MARK_FILE}: {e}"))?;
            self.mark_ms.store(mark, Ordering::Release);
            Ok(())
        })();
        // SAFETY: the lock taken above.
        unsafe { pg_sys::LWLockRelease(lock) };
        written
    }
}

/// The mark in the data directory (the working directory of every server process), or
/// [`NO_MARK`] when there is no file yet.
fn read_mark() -> Result<u64, String> {
    let text = match std::fs::read(MARK_FILE) {
        Ok(bytes) => bytes,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(NO_MARK),
        Err(e) => return Err(format!("cannot read the mark file {MARK_FILE}: {e}")),
    };
    let line = std::str::from_utf8(&text)
        .ok()
        .and_then(|t| t.strip_suffix('\n'));
    match line.and_then(|l| l.parse::<u64>().ok()) {
        Some(mark) if mark != NO_MARK && mark != BAD_MARK => Ok(mark),
        _ => Err(format!(
            "the mark file {MARK_FILE} holds {} bytes that are not one line with a Unix-millisecond mark",
            text.len().min(1 << 20)
        )),
    }
}
