//! A throwaway `redis-server` for tests (feature `testing`): started on a free loopback port with
//! no persistence, killed when dropped. `XBORDER_REDIS_SERVER` names the binary
//! (`redis-server` on the PATH by default; `tests/tools/setup.sh redis` installs it).

use std::net::{TcpListener, TcpStream};
use std::process::{Child, Command, Stdio};
use std::time::Duration;

/// A running `redis-server`, killed on drop.
#[derive(Debug)]
pub struct TestServer {
    child: Child,
    port: u16,
}

impl TestServer {
    /// Starts one and waits (up to 5 s) until it listens. The port is one the kernel hands out
    /// free; if redis-server still exits (something took the port in between), it tries another,
    /// five times in all.
    pub fn start() -> Result<TestServer, String> {
        let bin = std::env::var("XBORDER_REDIS_SERVER").unwrap_or_else(|_| "redis-server".into());
        let mut why = String::new();
        for _ in 0..5 {
            let port = TcpListener::bind("127.0.0.1:0")
                .and_then(|l| l.local_addr())
                .map_err(|e| format!("no free port: {e}"))?
                .port();
            let child = Command::new(&bin)
                .args(["--port", &port.to_string(), "--bind", "127.0.0.1"])
                .args(["--save", "", "--appendonly", "no"])
                .stdout(Stdio::null())
                .spawn()
                .map_err(|e| {
                    format!(
                        "{bin} could not start ({e}): bash tests/tools/setup.sh redis installs it"
                    )
                })?;
            let mut server = TestServer { child, port };
            why = format!("{bin} did not listen on port {port} within 5 s");
            for _ in 0..100 {
                if TcpStream::connect(("127.0.0.1", port)).is_ok() {
                    return Ok(server);
                }
                if let Ok(Some(status)) = server.child.try_wait() {
                    why = format!("{bin} exited ({status}) before it listened on port {port}");
                    break;
                }
                std::thread::sleep(Duration::from_millis(50));
            }
            server.kill();
        }
        Err(why)
    }

    /// Its port.
    pub fn port(&self) -> u16 {
        self.port
    }

    /// Its process id (to stop it with SIGSTOP and resume it with SIGCONT: a hung store).
    pub fn pid(&self) -> u32 {
        self.child.id()
    }

    /// Its URL, `redis://127.0.0.1:<port>/`.
    pub fn url(&self) -> String {
        format!("redis://127.0.0.1:{}/", self.port)
    }

    /// Kills it now (what dropping it does).
    pub fn kill(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

impl Drop for TestServer {
    fn drop(&mut self) {
        self.kill();
    }
}
