//! The mock PSP in process, served over real loopback HTTP.

use mock_psp::{MockPsp, RunningServer};
use std::net::SocketAddr;
use std::path::Path;
use std::time::Duration;

/// Attempts to bind a port that was just released (a PSP restarted on its old port).
const MAX_BIND_ATTEMPTS: u32 = 50;

/// A mock PSP with its store in `dir/psp.sqlite3`, one account (`key`), and `seed` for
/// its ids and faults (none unless the test sets some).
pub fn psp_on_file(dir: &Path, key: &str, seed: u64) -> MockPsp {
    MockPsp::builder().db(dir.join("psp.sqlite3")).secret_key(key).seed(seed).build().expect("mock PSP")
}

/// Serves `psp` on a free loopback port.
pub async fn serve(psp: &MockPsp) -> RunningServer {
    psp.serve("127.0.0.1:0".parse().expect("loopback address")).await.expect("serve the mock PSP on 127.0.0.1:0")
}

/// Serves `psp` on `addr`, which may still be held for a moment by the server it
/// replaces: the bind is retried (at most [`MAX_BIND_ATTEMPTS`] times) until the port is
/// free. The kernel gives no signal for that, so this waits between attempts.
pub async fn serve_on(psp: &MockPsp, addr: SocketAddr) -> RunningServer {
    let mut attempt = 0;
    loop {
        match psp.serve(addr).await {
            Ok(s) => return s,
            Err(e) if attempt + 1 < MAX_BIND_ATTEMPTS => {
                attempt += 1;
                let _ = e;
                tokio::time::sleep(Duration::from_millis(100)).await;
            }
            Err(e) => panic!("serve the mock PSP on {addr}: {e}"),
        }
    }
}

/// A loopback port kept out of everyone's reach while its server is down: the socket
/// is bound but never listens, so a connection is refused (the cable is pulled) and no
/// other test can be given the port by the kernel in the meantime. Without it, a test
/// that stops its PSP and later restarts it on the same port could find another
/// test's PSP there, and each would see the other's charges.
pub struct PortHold {
    _socket: socket2::Socket,
}

impl PortHold {
    /// Binds `addr` without listening. Retried like [`serve_on`]: the server that just
    /// let go of the port may hold it for a moment.
    pub async fn take(addr: SocketAddr) -> PortHold {
        let mut attempt = 0;
        loop {
            match PortHold::bind(addr) {
                Ok(h) => return h,
                Err(e) if attempt + 1 < MAX_BIND_ATTEMPTS => {
                    attempt += 1;
                    let _ = e;
                    tokio::time::sleep(Duration::from_millis(20)).await;
                }
                Err(e) => panic!("hold the port {addr}: {e}"),
            }
        }
    }

    fn bind(addr: SocketAddr) -> std::io::Result<PortHold> {
        let socket = socket2::Socket::new(socket2::Domain::for_address(addr), socket2::Type::STREAM, None)?;
        // As the server's own socket does: the port may still have connections in
        // TIME_WAIT. A bound socket that is not listening still keeps the kernel from
        // handing the port to anyone asking for "any free port".
        socket.set_reuse_address(true)?;
        socket.bind(&addr.into())?;
        Ok(PortHold { _socket: socket })
    }
}
