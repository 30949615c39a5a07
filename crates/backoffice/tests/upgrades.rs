//! A database left at an older schema, for the upgrade tests: a private cluster migrated by
//! the real migrations up to a version, a client on it to plant what that version held, and
//! the real start-up path (`build`) to upgrade it.
use crate::support::{start_cluster, ADMIN_TOKEN};
use paydesk_backoffice::pgcluster::Cluster;
use paydesk_backoffice::state::{AppState, Limits};
use paydesk_backoffice::{build, db::DbError, Config};

pub struct Older {
    /// Kept for the test's life: dropping it stops the cluster.
    _cluster: Cluster,
    pub conn: String,
    pub client: tokio_postgres::Client,
}

impl Older {
    /// A fresh database at schema `version`.
    pub async fn at(version: i32) -> Older {
        let cluster = tokio::task::spawn_blocking(start_cluster).await.unwrap();
        cluster.create_db("paydesk").await.unwrap();
        let conn = cluster.conn_string("paydesk");
        paydesk_backoffice::db::migrate_to(&conn, version).await.unwrap();
        let (client, task) = tokio_postgres::connect(&conn, tokio_postgres::NoTls).await.unwrap();
        tokio::spawn(task);
        Older { _cluster: cluster, conn, client }
    }

    /// The back office's start-up on it: every later migration, as a store's upgrade runs.
    pub async fn upgrade(&self) -> Result<AppState, DbError> {
        build(&Config { database: self.conn.clone(), admin_token: ADMIN_TOKEN.into(), limits: Limits::default(), behind_tls: false }).await
    }
}
