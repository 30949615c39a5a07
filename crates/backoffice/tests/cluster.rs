//! The private cluster and the start-up path: PostgreSQL runs as an unprivileged user,
//! stops when dropped, and the back office migrates an empty database, starts again on a
//! migrated one, and refuses a database newer than its code.
use crate::support;
use paydesk_backoffice::db::{code_schema_version, DbError};
use paydesk_backoffice::{build, state::Limits, Config};
use support::*;

fn uid_of(pid: u32) -> u32 {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).unwrap();
    let line = status.lines().find(|l| l.starts_with("Uid:")).unwrap();
    line.split_whitespace().nth(1).unwrap().parse().unwrap()
}

fn postmaster_pid(cluster: &paydesk_backoffice::pgcluster::Cluster) -> u32 {
    let pidfile = std::fs::read_to_string(cluster.socket_dir().join("data/postmaster.pid")).unwrap();
    pidfile.lines().next().unwrap().trim().parse().unwrap()
}

#[tokio::test]
async fn the_cluster_runs_unprivileged_and_is_gone_after_drop() {
    let cluster = tokio::task::spawn_blocking(start_cluster).await.unwrap();
    let pid = postmaster_pid(&cluster);
    let me = unsafe { libc::geteuid() };
    if me == 0 {
        assert_ne!(uid_of(pid), 0, "postgres must not run as root");
    } else {
        assert_eq!(uid_of(pid), me);
    }
    let (c, conn) = tokio_postgres::connect(&cluster.conn_string("postgres"), tokio_postgres::NoTls).await.unwrap();
    tokio::spawn(conn);
    let one: i32 = c.query_one("SELECT 1", &[]).await.unwrap().get(0);
    assert_eq!(one, 1);
    let dir = cluster.socket_dir().to_path_buf();
    tokio::task::spawn_blocking(move || drop(cluster)).await.unwrap();
    assert!(!std::path::Path::new(&format!("/proc/{pid}")).exists(), "postmaster {pid} still running");
    assert!(!dir.exists(), "temp dir kept after a clean stop");
}

#[tokio::test]
async fn migrations_run_once_and_a_newer_database_is_refused() {
    let cluster = tokio::task::spawn_blocking(start_cluster).await.unwrap();
    cluster.create_db("paydesk").await.unwrap();
    let cfg = Config { database: cluster.conn_string("paydesk"), admin_token: ADMIN_TOKEN.into(), limits: Limits::default(), behind_tls: false };
    build(&cfg).await.expect("first start migrates");
    build(&cfg).await.expect("second start finds it migrated");
    let (c, conn) = tokio_postgres::connect(&cfg.database, tokio_postgres::NoTls).await.unwrap();
    tokio::spawn(conn);
    // each migration once, up to the code's newest (versions need not be contiguous: a
    // branch may hold V15 before V14 is merged, record 0143)
    let r = c.query_one("SELECT count(*), count(DISTINCT version)::int8, max(version)::int8 FROM refinery_schema_history", &[]).await.unwrap();
    let (n, distinct, max): (i64, i64, i64) = (r.get(0), r.get(1), r.get(2));
    assert_eq!((n, max), (distinct, code_schema_version()));
    let files = std::fs::read_dir(concat!(env!("CARGO_MANIFEST_DIR"), "/migrations")).unwrap().count() as i64;
    assert_eq!(n, files, "every migration file ran");
    // a later back office migrated this database further
    let newer = (code_schema_version() + 1) as i32;
    c.execute("INSERT INTO refinery_schema_history (version, name, applied_on, checksum) VALUES ($1, 'from_the_future', '2030-01-01', '0')", &[&newer]).await.unwrap();
    let err = build(&cfg).await.err().expect("a newer database must be refused");
    assert!(matches!(err, DbError::NewerThanCode { db, code } if db == newer as i64 && code == code_schema_version()), "{err}");
    assert!(err.to_string().contains("newer than this back office"), "{err}");
}
