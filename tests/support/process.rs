//! The processes a window test starts and reads: a child in its own process group,
//! stopped by group (SIGTERM, then SIGKILL to what is left once the leader has gone),
//! and what /proc says about a group, a process tree and its memory.

use std::net::TcpStream;
use std::os::unix::process::CommandExt;
use std::process::{Child, Command};
use std::time::{Duration, Instant};

/// Waits until `port` accepts connections while `group`'s process is alive: a driver
/// that exited (its port taken) is not waited for.
pub(crate) fn wait_listening(group: &mut Group, port: u16, timeout: Duration) -> bool {
    let end = Instant::now() + timeout;
    while Instant::now() < end {
        if matches!(group.child.try_wait(), Ok(Some(_))) {
            return false;
        }
        if TcpStream::connect(("127.0.0.1", port)).is_ok() {
            return true;
        }
        std::thread::sleep(Duration::from_millis(50));
    }
    false
}

/// A child process in its own process group, stopped with SIGTERM to the group.
pub(crate) struct Group {
    pub(crate) child: Child,
    name: &'static str,
}

impl Group {
    pub(crate) fn spawn(mut cmd: Command, name: &'static str) -> Group {
        cmd.process_group(0);
        let child = cmd.spawn().unwrap_or_else(|e| panic!("could not start {name}: {e}"));
        Group { child, name }
    }

    pub(crate) fn stop(&mut self) {
        if let Ok(Some(_)) = self.child.try_wait() {
            return;
        }
        let pgid = self.child.id() as i32;
        unsafe { libc::kill(-pgid, libc::SIGTERM) };
        let end = Instant::now() + Duration::from_secs(10);
        while Instant::now() < end {
            if let Ok(Some(_)) = self.child.try_wait() {
                // The leader is gone. What is left of its group (WebKitWebDriver, WebKit's
                // helper processes) holds no data of a test's: SIGKILL it rather than give
                // it a second to wind down (that second, once per window test, was a
                // minute of `make test`). Then wait until the group is empty.
                unsafe { libc::kill(-pgid, libc::SIGKILL) };
                let end2 = Instant::now() + Duration::from_secs(3);
                while Instant::now() < end2 && group_has_live_process(pgid) {
                    std::thread::sleep(Duration::from_millis(10));
                }
                return;
            }
            std::thread::sleep(Duration::from_millis(50));
        }
        eprintln!("{} did not stop on SIGTERM; killing its group", self.name);
        unsafe { libc::kill(-pgid, libc::SIGKILL) };
        let _ = self.child.wait();
    }
}

impl Drop for Group {
    fn drop(&mut self) {
        self.stop();
    }
}

/// Whether process group `pgid` still has a process that is not a zombie. A killed
/// process's orphans are reaped by PID 1, which on these machines does it about once a
/// second: `kill(-pgid, 0)` succeeds for a group of zombies, and waiting on it made every
/// window test end on a whole second.
fn group_has_live_process(pgid: i32) -> bool {
    let Ok(rd) = std::fs::read_dir("/proc") else { return false };
    rd.flatten().any(|e| {
        let Ok(pid) = e.file_name().to_string_lossy().parse::<i32>() else { return false };
        let Ok(stat) = std::fs::read_to_string(format!("/proc/{pid}/stat")) else { return false };
        // pid (comm) state ppid pgrp ...; comm may contain spaces: split after ')'
        let Some((_, rest)) = stat.rsplit_once(')') else { return false };
        let mut f = rest.split_whitespace();
        let (state, pgrp) = (f.next(), f.nth(1).and_then(|x| x.parse::<i32>().ok()));
        pgrp == Some(pgid) && state != Some("Z")
    })
}

pub(crate) fn processes() -> Vec<(i32, i32)> {
    let mut v = Vec::new();
    if let Ok(rd) = std::fs::read_dir("/proc") {
        for e in rd.flatten() {
            let Ok(pid) = e.file_name().to_string_lossy().parse::<i32>() else { continue };
            if let Ok(stat) = std::fs::read_to_string(format!("/proc/{pid}/stat")) {
                // pid (comm) state ppid ...; comm may contain spaces: split after ')'
                if let Some(rest) = stat.rsplit_once(')').map(|(_, r)| r) {
                    if let Some(ppid) = rest.split_whitespace().nth(1).and_then(|x| x.parse().ok()) {
                        v.push((pid, ppid));
                    }
                }
            }
        }
    }
    v
}

pub(crate) fn descendants(procs: &[(i32, i32)], root: i32) -> Vec<i32> {
    let mut out = Vec::new();
    let mut stack = vec![root];
    while let Some(p) = stack.pop() {
        for (c, pp) in procs {
            if *pp == p {
                out.push(*c);
                stack.push(*c);
            }
        }
    }
    out
}

pub(crate) fn pss_kb(pid: i32) -> u64 {
    std::fs::read_to_string(format!("/proc/{pid}/smaps_rollup"))
        .ok()
        .and_then(|t| {
            t.lines()
                .find(|l| l.starts_with("Pss:"))
                .and_then(|l| l.split_whitespace().nth(1))
                .and_then(|n| n.parse().ok())
        })
        .unwrap_or(0)
}
