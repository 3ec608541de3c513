//! A throwaway PostgreSQL server for tests (feature `testing`): `tests/servers/postgres.sh`
//! initialises a cluster in a fresh folder under the system's temporary folder and starts it on
//! a free loopback port (trust authentication); dropping the [`PgServer`] stops it and removes
//! the folder. Should the test process die first, the script's watchdog does both.
//!
//! Needs PostgreSQL's server binaries (`/usr/lib/postgresql/*/bin`, or `XBORDER_PG_BIN`; `bash
//! tests/tools/setup.sh postgres` installs them). Without them [`PgServer::start`] fails with the
//! script's message: the tests fail, they never pass by skipping.

use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::atomic::{AtomicU32, Ordering};

use tokio_postgres::{Client, NoTls};

/// A running PostgreSQL server, stopped (and its folder removed) on drop.
#[derive(Debug)]
pub struct PgServer {
    dir: PathBuf,
    url: String,
}

/// The server script, in the repository beside this crate.
pub fn script() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../tests/servers/postgres.sh")
}

fn run(cmd: &str, dir: &Path) -> Result<String, String> {
    let out = Command::new("bash")
        .arg(script())
        .arg(cmd)
        .arg(dir)
        .env("XBORDER_PG_OWNER", std::process::id().to_string())
        .output()
        .map_err(|e| format!("bash {} could not run: {e}", script().display()))?;
    let stdout = String::from_utf8_lossy(&out.stdout);
    if !out.status.success() {
        return Err(format!(
            "server.sh {cmd} {} failed ({}): {}",
            dir.display(),
            out.status,
            String::from_utf8_lossy(&out.stderr).trim()
        ));
    }
    Ok(stdout.lines().last().unwrap_or_default().trim().to_owned())
}

static SCHEMAS: AtomicU32 = AtomicU32::new(0);

impl PgServer {
    /// Initialises and starts one (about a second), waiting until it accepts connections.
    pub fn start() -> Result<PgServer, String> {
        static N: AtomicU32 = AtomicU32::new(0);
        let nanos = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map(|d| d.subsec_nanos())
            .unwrap_or_default();
        let dir = std::env::temp_dir().join(format!(
            "xborder-pg-{}-{}-{nanos}",
            std::process::id(),
            N.fetch_add(1, Ordering::Relaxed)
        ));
        std::fs::create_dir_all(&dir).map_err(|e| format!("{}: {e}", dir.display()))?;
        match run("start", &dir) {
            Ok(url) if url.starts_with("postgres://") => Ok(PgServer { dir, url }),
            Ok(other) => {
                let _ = run("stop", &dir);
                let _ = std::fs::remove_dir_all(&dir);
                Err(format!("server.sh start printed no URL: {other:?}"))
            }
            Err(e) => {
                let _ = std::fs::remove_dir_all(&dir);
                Err(e)
            }
        }
    }

    /// Its URL, `postgres://xborder@127.0.0.1:<port>/postgres` (a superuser, trust).
    pub fn url(&self) -> &str {
        &self.url
    }

    /// Its folder (the cluster in `data/`, the log in `postgres.log`).
    pub fn dir(&self) -> &Path {
        &self.dir
    }

    /// Kills it (`pg_ctl restart -m immediate`: a crash, then crash recovery) and starts it
    /// again on the same port.
    pub fn restart(&self) -> Result<(), String> {
        run("restart", &self.dir).map(|_| ())
    }

    /// Connects (the connection's task spawned on the current tokio runtime).
    pub async fn connect(&self) -> Result<Client, String> {
        connect(&self.url).await
    }

    /// A schema of its own (`t<n>`) with the claims table in it, and a connection whose
    /// `search_path` is that schema: tests sharing a server do not see each other's rows.
    /// [`PgServer::connect_to`] opens more connections to it.
    pub async fn fresh_schema(&self) -> Result<(String, Client), String> {
        let schema = format!("t{}", SCHEMAS.fetch_add(1, Ordering::Relaxed));
        let admin = self.connect().await?;
        admin
            .batch_execute(&format!("CREATE SCHEMA {schema}"))
            .await
            .map_err(|e| format!("create schema: {e}"))?;
        let client = self.connect_to(&schema).await?;
        crate::PostgresClaims::migrate(&client)
            .await
            .map_err(|e| format!("migration: {e}"))?;
        Ok((schema, client))
    }

    /// A connection whose `search_path` is `schema`.
    pub async fn connect_to(&self, schema: &str) -> Result<Client, String> {
        connect(&format!("{}?options=-csearch_path%3D{schema}", self.url)).await
    }

    /// Stops it now (what dropping it does, and removes its folder).
    pub fn stop(&mut self) {
        let _ = run("stop", &self.dir);
        let _ = std::fs::remove_dir_all(&self.dir);
    }
}

async fn connect(url: &str) -> Result<Client, String> {
    let (client, conn) = tokio_postgres::connect(url, NoTls)
        .await
        .map_err(|e| format!("connect {url}: {e}"))?;
    tokio::spawn(async move {
        let _ = conn.await;
    });
    Ok(client)
}

impl Drop for PgServer {
    fn drop(&mut self) {
        self.stop();
    }
}
