//! A private etcd for one test: its own ports and data directory, so that freezing, killing or
//! restarting it stalls no other test. Killed (and its data removed) when dropped.

use std::fs::File;
use std::net::TcpListener;
use std::process::{Child, Command, Stdio};
use std::thread;
use std::time::{Duration, Instant};

use super::files::TempDir;
use super::signal::{signal, try_signal};

/// How long a start or a restart may take before etcd answers (a single member elects itself
/// within about two election timeouts: 2 s by default).
pub const START_LIMIT: Duration = Duration::from_secs(20);

/// A private single-member etcd on loopback.
pub struct PrivateEtcd {
    child: Option<Child>,
    /// The data directory and the log live here; removed on drop.
    dir: TempDir,
    /// The client URL, `http://127.0.0.1:port`, the same across restarts.
    pub endpoint: String,
    peer: String,
}

impl PrivateEtcd {
    /// Whether the `etcd` binary runs here; if not, says that `test` is skipped.
    pub fn available(test: &str) -> bool {
        let runs = Command::new("etcd")
            .arg("--version")
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .status()
            .is_ok_and(|status| status.success());
        if !runs {
            eprintln!(
                "skipped {test}: no `etcd` binary to start (.ci/check installs Debian's \
                 etcd-server)"
            );
        }
        runs
    }

    /// Starts an etcd on two free ports with a fresh data directory, without waiting for it
    /// to answer.
    pub fn spawn() -> Self {
        let port = || {
            TcpListener::bind("127.0.0.1:0")
                .unwrap()
                .local_addr()
                .unwrap()
                .port()
        };
        let mut etcd = PrivateEtcd {
            child: None,
            dir: TempDir::new("etcd"),
            endpoint: format!("http://127.0.0.1:{}", port()),
            peer: format!("http://127.0.0.1:{}", port()),
        };
        etcd.child = Some(etcd.launch());
        etcd
    }

    /// Starts an etcd as [`spawn`](Self::spawn) does and waits until it answers.
    pub fn start() -> Self {
        let etcd = Self::spawn();
        etcd.wait_healthy(START_LIMIT);
        etcd
    }

    /// Runs the etcd process on this value's ports and data directory (kept from an earlier
    /// run: the restart of the same member), its output appended to `etcd.log`.
    fn launch(&self) -> Child {
        let log = File::options()
            .create(true)
            .append(true)
            .open(self.dir.join("etcd.log"))
            .unwrap();
        Command::new("etcd")
            .arg("--name=private")
            .arg(format!("--data-dir={}", self.dir.join("data").display()))
            .arg(format!("--listen-client-urls={}", self.endpoint))
            .arg(format!("--advertise-client-urls={}", self.endpoint))
            .arg(format!("--listen-peer-urls={}", self.peer))
            .arg(format!("--initial-advertise-peer-urls={}", self.peer))
            .arg(format!("--initial-cluster=private={}", self.peer))
            .stdout(Stdio::null())
            .stderr(log)
            .spawn()
            .expect("start a private etcd (the etcd-server package)")
    }

    /// Waits until `etcdctl endpoint health` succeeds; panics after `limit`. Returns when it
    /// answered.
    pub fn wait_healthy(&self, limit: Duration) -> Instant {
        let started = Instant::now();
        loop {
            let healthy = Command::new("etcdctl")
                .env("ETCDCTL_API", "3")
                .args(["--endpoints", &self.endpoint])
                .args(["--dial-timeout=500ms", "--command-timeout=500ms"])
                .args(["endpoint", "health"])
                .stdout(Stdio::null())
                .stderr(Stdio::null())
                .status()
                .is_ok_and(|status| status.success());
            if healthy {
                return Instant::now();
            }
            assert!(
                started.elapsed() < limit,
                "the private etcd at {} did not answer within {limit:?}; its log: {}",
                self.endpoint,
                self.log_tail()
            );
            thread::sleep(Duration::from_millis(20));
        }
    }

    /// The etcd process's ID.
    pub fn pid(&self) -> u32 {
        self.child.as_ref().expect("etcd is running").id()
    }

    /// Stops the process (`SIGSTOP`): connections stay open, requests wait unanswered.
    pub fn freeze(&self) {
        signal(self.pid(), "STOP");
    }

    /// Resumes a frozen process (`SIGCONT`).
    pub fn thaw(&self) {
        signal(self.pid(), "CONT");
    }

    /// Kills the process (`SIGKILL`) and reaps it; its data directory stays.
    pub fn kill(&mut self) {
        if let Some(mut child) = self.child.take() {
            let _ = child.kill();
            let _ = child.wait();
        }
    }

    /// Starts the killed member again on the same ports and data directory and waits until
    /// it answers: returns when it did.
    pub fn restart(&mut self) -> Instant {
        assert!(self.child.is_none(), "kill etcd before restarting it");
        self.child = Some(self.launch());
        self.wait_healthy(START_LIMIT)
    }

    /// The last lines etcd logged, for a failure's message.
    fn log_tail(&self) -> String {
        let log = std::fs::read_to_string(self.dir.join("etcd.log")).unwrap_or_default();
        let lines: Vec<&str> = log.lines().collect();
        lines[lines.len().saturating_sub(10)..].join("\n")
    }
}

impl Drop for PrivateEtcd {
    fn drop(&mut self) {
        if let Some(child) = &self.child {
            try_signal(child.id(), "CONT");
        }
        self.kill();
    }
}
