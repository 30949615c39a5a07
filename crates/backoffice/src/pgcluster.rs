//! A private PostgreSQL cluster in a temp dir, for the tests and `make backoffice`
//! (record 0043): initdb, then `postgres` on a free loopback port with its socket in the
//! same dir, as an unprivileged user because PostgreSQL refuses to run as root. Stopped
//! when dropped; its log is kept (and its path printed) if the thread is panicking.
use std::io::{BufRead, BufReader, Write};
use std::os::unix::process::CommandExt;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::mpsc;
use std::time::Duration;

/// The system user the cluster runs as when the caller is root (`make deps` creates it).
pub const PG_USER: &str = "paydesk-pg";
/// How long a fresh cluster may take to accept connections.
const START_TIMEOUT: Duration = Duration::from_secs(60);
/// How long a fast shutdown may take before the group is killed.
const STOP_TIMEOUT: Duration = Duration::from_secs(20);

#[derive(Debug, thiserror::Error)]
pub enum ClusterError {
    #[error("PostgreSQL's binaries (initdb, postgres) were not found under /usr/lib/postgresql/*/bin; install Debian's postgresql package (make deps)")]
    NoBinaries,
    #[error("running as root, and the user {PG_USER} that PostgreSQL should run as does not exist; create it (make deps does: useradd --system {PG_USER})")]
    NoUser,
    #[error("{what}: {source}")]
    Io { what: String, source: std::io::Error },
    #[error("{what} failed; its output is in {log}")]
    Failed { what: String, log: PathBuf },
}

fn io(what: impl Into<String>) -> impl FnOnce(std::io::Error) -> ClusterError {
    let what = what.into();
    move |source| ClusterError::Io { what, source }
}

/// The newest PostgreSQL's bin dir (Debian installs each major version side by side).
pub fn bin_dir() -> Result<PathBuf, ClusterError> {
    let mut found: Vec<(u32, PathBuf)> = std::fs::read_dir("/usr/lib/postgresql")
        .map_err(|_| ClusterError::NoBinaries)?
        .filter_map(|e| e.ok())
        .filter_map(|e| {
            let major: u32 = e.file_name().to_str()?.parse().ok()?;
            let bin = e.path().join("bin");
            (bin.join("initdb").exists() && bin.join("postgres").exists()).then_some((major, bin))
        })
        .collect();
    found.sort();
    found.pop().map(|(_, b)| b).ok_or(ClusterError::NoBinaries)
}

/// Whom to run PostgreSQL as: ourselves, or `paydesk-pg` when we are root.
fn run_as() -> Result<Option<(u32, u32)>, ClusterError> {
    if unsafe { libc::geteuid() } != 0 {
        return Ok(None);
    }
    let name = std::ffi::CString::new(PG_USER).expect("no NUL");
    let pw = unsafe { libc::getpwnam(name.as_ptr()) };
    if pw.is_null() {
        return Err(ClusterError::NoUser);
    }
    let (uid, gid) = unsafe { ((*pw).pw_uid, (*pw).pw_gid) };
    Ok(Some((uid, gid)))
}

fn free_port() -> Result<u16, ClusterError> {
    let l = std::net::TcpListener::bind("127.0.0.1:0").map_err(io("bind a probe port"))?;
    Ok(l.local_addr().map_err(io("probe port"))?.port())
}

/// A running private cluster. Connect with [`Cluster::conn_string`].
pub struct Cluster {
    dir: Option<tempfile::TempDir>,
    /// The postmaster (the leader of its own process group); `None` before the first start.
    child: Option<Child>,
    port: u16,
    log: PathBuf,
    bin: PathBuf,
    owner: Option<(u32, u32)>,
    opts: ClusterOptions,
}

/// Options for [`Cluster::start`].
#[derive(Debug, Clone, Default)]
pub struct ClusterOptions {
    /// Tests turn durability off (fsync) for speed; a demo keeps PostgreSQL's defaults.
    pub fast_unsafe: bool,
}

impl Cluster {
    pub fn start(opts: ClusterOptions) -> Result<Cluster, ClusterError> {
        let bin = bin_dir()?;
        let owner = run_as()?;
        let dir = tempfile::Builder::new().prefix("paydesk-pg-").tempdir().map_err(io("make the cluster's temp dir"))?;
        if let Some((uid, gid)) = owner {
            std::os::unix::fs::chown(dir.path(), Some(uid), Some(gid)).map_err(io("hand the temp dir to the PostgreSQL user"))?;
        }
        let data = dir.path().join("data");
        let log = dir.path().join("postgres.log");
        let initdb_log = dir.path().join("initdb.log");
        let mut initdb = Command::new(bin.join("initdb"));
        let out = std::fs::File::create(&initdb_log).map_err(io("create initdb.log"))?;
        let err = out.try_clone().map_err(io("open initdb.log"))?;
        initdb
            .arg("-D")
            .arg(&data)
            .args(["-U", "postgres", "-E", "UTF8", "--no-locale", "--auth-local=trust", "--auth-host=reject", "--no-sync"])
            .stdout(Stdio::from(out))
            .stderr(Stdio::from(err));
        as_owner(&mut initdb, owner);
        let st = initdb.status().map_err(io("run initdb"))?;
        if !st.success() {
            let kept = dir.keep();
            return Err(ClusterError::Failed { what: "initdb".into(), log: kept.join("initdb.log") });
        }
        let port = free_port()?;
        let mut cluster = Cluster { dir: Some(dir), child: None, port, log, bin, owner, opts };
        cluster.launch()?;
        Ok(cluster)
    }

    /// Starts `postgres` on the cluster's data dir and port and waits until it accepts
    /// connections. Its log is appended to, so a restart keeps the earlier lines.
    fn launch(&mut self) -> Result<(), ClusterError> {
        let dir = self.socket_dir().to_path_buf();
        let mut cmd = Command::new(self.bin.join("postgres"));
        cmd.arg("-D")
            .arg(dir.join("data"))
            .args(["-p", &self.port.to_string(), "-c", "listen_addresses=127.0.0.1", "-c"])
            .arg(format!("unix_socket_directories={}", dir.display()))
            .args(["-c", "max_connections=50", "-c", "shared_buffers=32MB"]);
        if self.opts.fast_unsafe {
            cmd.args(["-c", "fsync=off", "-c", "synchronous_commit=off", "-c", "full_page_writes=off"]);
        }
        cmd.stdin(Stdio::null()).stdout(Stdio::null()).stderr(Stdio::piped()).process_group(0);
        as_owner(&mut cmd, self.owner);
        let mut child = cmd.spawn().map_err(io("start postgres"))?;
        // Its log goes to a file; the line saying it accepts connections is the signal
        // that it is ready (no polling).
        let (ready_tx, ready_rx) = mpsc::channel();
        let stderr = child.stderr.take().expect("piped");
        let mut file = std::fs::OpenOptions::new().create(true).append(true).open(&self.log).map_err(io("open postgres.log"))?;
        std::thread::spawn(move || {
            let mut ready = Some(ready_tx);
            for line in BufReader::new(stderr).lines().map_while(Result::ok) {
                let _ = writeln!(file, "{line}");
                if line.contains("database system is ready to accept connections") {
                    if let Some(tx) = ready.take() {
                        let _ = tx.send(());
                    }
                }
            }
        });
        self.child = Some(child);
        if ready_rx.recv_timeout(START_TIMEOUT).is_err() {
            self.stop();
            let kept = self.keep_dir();
            return Err(ClusterError::Failed { what: "starting postgres".into(), log: kept.join("postgres.log") });
        }
        Ok(())
    }

    /// Starts PostgreSQL again on the same data dir and port after [`Cluster::kill`]: it
    /// runs its crash recovery and accepts connections as before.
    pub fn restart(&mut self) -> Result<(), ClusterError> {
        if let Some(c) = self.child.as_mut() {
            if let Ok(None) = c.try_wait() {
                return Ok(());
            }
        }
        self.launch()
    }

    /// The postmaster's pid while it runs.
    pub fn pid(&self) -> Option<u32> {
        self.child.as_ref().map(Child::id)
    }

    /// The socket dir (also the cluster's temp dir).
    pub fn socket_dir(&self) -> &Path {
        self.dir.as_ref().expect("dir present until drop").path()
    }

    pub fn port(&self) -> u16 {
        self.port
    }

    pub fn log_path(&self) -> &Path {
        &self.log
    }

    /// A libpq-style connection string to database `db` over the private socket.
    pub fn conn_string(&self, db: &str) -> String {
        format!("host={} port={} user=postgres dbname={db}", self.socket_dir().display(), self.port)
    }

    /// Creates a database (through the maintenance database `postgres`).
    pub async fn create_db(&self, name: &str) -> Result<(), tokio_postgres::Error> {
        let (client, conn) = tokio_postgres::connect(&self.conn_string("postgres"), tokio_postgres::NoTls).await?;
        let task = tokio::spawn(conn);
        // an identifier cannot be a parameter; the name is the caller's constant
        assert!(name.bytes().all(|b| b.is_ascii_lowercase() || b == b'_'), "database name {name:?}");
        client.batch_execute(&format!("CREATE DATABASE {name}")).await?;
        drop(client);
        let _ = task.await;
        Ok(())
    }

    /// Kills the whole server with SIGKILL (a crash, as of the machine), then waits until
    /// every one of its processes is gone; for crash tests.
    ///
    /// PostgreSQL's backends each lead a process group of their own (they call `setsid`),
    /// so the postmaster's group is not all of them: a backend outlives a killed postmaster
    /// for a moment, holding the shared memory, and a new postmaster started then refuses
    /// to run ("pre-existing shared memory block is still in use": seen failing the sync
    /// chaos test). So the postmaster is stopped first (it can fork no one new), its
    /// children are found by their parent and killed with it, and each is waited for.
    pub fn kill(&mut self) {
        let Some(child) = self.child.as_mut() else { return };
        let pid = child.id() as i32;
        unsafe { libc::kill(pid, libc::SIGSTOP) };
        let kids = children_of(pid);
        unsafe { libc::kill(-pid, libc::SIGKILL) };
        for k in &kids {
            unsafe { libc::kill(*k, libc::SIGKILL) };
        }
        let _ = child.wait();
        wait_gone(&kids);
    }

    /// Shuts PostgreSQL down as an administrator would (fast mode: every session is ended
    /// with SQLSTATE 57P01), then waits; [`Cluster::restart`] starts it again. For tests of
    /// a database going away under requests.
    pub fn shut_down(&mut self) {
        self.stop();
    }

    /// Fast shutdown: SIGINT to the postmaster (PostgreSQL's SIGTERM is the "smart" mode,
    /// which waits for every client to leave), then waits; the whole group is killed if it
    /// has not stopped in time.
    fn stop(&mut self) {
        let Some(child) = self.child.as_mut() else { return };
        if let Ok(Some(_)) = child.try_wait() {
            return;
        }
        let pid = child.id() as i32;
        unsafe { libc::kill(pid, libc::SIGINT) };
        let (tx, rx) = mpsc::channel();
        let waited = std::thread::scope(|s| {
            s.spawn(move || {
                let _ = child.wait();
                let _ = tx.send(());
            });
            match rx.recv_timeout(STOP_TIMEOUT) {
                Ok(()) => true,
                Err(_) => {
                    unsafe { libc::kill(-pid, libc::SIGKILL) };
                    false
                }
            }
        });
        if !waited {
            eprintln!("postgres did not stop within {STOP_TIMEOUT:?}; killed its process group");
        }
    }

    fn keep_dir(&mut self) -> PathBuf {
        match self.dir.take() {
            Some(d) => d.keep(),
            None => PathBuf::new(),
        }
    }
}

/// The pids whose parent is `parent` (from /proc).
fn children_of(parent: i32) -> Vec<i32> {
    let Ok(dir) = std::fs::read_dir("/proc") else { return Vec::new() };
    dir.flatten()
        .filter_map(|e| e.file_name().to_str()?.parse::<i32>().ok())
        .filter(|pid| stat_of(*pid).is_some_and(|(_, ppid)| ppid == parent))
        .collect()
}

/// A process's state letter and parent pid from /proc/PID/stat (`None`: no such process).
fn stat_of(pid: i32) -> Option<(char, i32)> {
    let text = std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
    // "pid (comm) S ppid …": comm may hold spaces and parentheses, so read after the last ')'
    let mut rest = text[text.rfind(')')? + 1..].split_whitespace();
    let state = rest.next()?.chars().next()?;
    Some((state, rest.next()?.parse().ok()?))
}

/// Waits (bounded) until each pid has exited: gone, or a zombie (which holds no memory;
/// whoever adopted it reaps it). /proc gives no event for another process's exit.
fn wait_gone(pids: &[i32]) {
    let end = std::time::Instant::now() + STOP_TIMEOUT;
    while pids.iter().any(|p| stat_of(*p).is_some_and(|(state, _)| state != 'Z' && state != 'X')) {
        if std::time::Instant::now() > end {
            eprintln!("postgres' processes {pids:?} still ran {STOP_TIMEOUT:?} after SIGKILL");
            return;
        }
        std::thread::sleep(Duration::from_millis(5));
    }
}

fn as_owner(cmd: &mut Command, owner: Option<(u32, u32)>) {
    if let Some((uid, gid)) = owner {
        cmd.uid(uid).gid(gid).env("HOME", "/tmp");
    }
}

impl Drop for Cluster {
    fn drop(&mut self) {
        self.stop();
        if std::thread::panicking() {
            let kept = self.keep_dir();
            eprintln!("PostgreSQL's log is kept in {}", kept.join("postgres.log").display());
        }
    }
}
