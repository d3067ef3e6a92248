//! Child processes for the tests.

use std::process::Child;

/// A child process, killed and reaped when dropped, so that a failed test leaves none behind.
pub struct KillOnDrop(pub Child);

impl Drop for KillOnDrop {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}
