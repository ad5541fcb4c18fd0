//! Run leases: the process running a run holds the run's lease, so a
//! second `pactum run --resume` of the same run is refused while the first
//! is alive, and a holder that died (`kill -9`, a crash, a power cut)
//! never blocks the run for good.
//!
//! The store keeps the lease (holder token, pid, host, times) and applies
//! the caller's judgement of whether a lease is stale; what counts as
//! stale (a dead process on this host, a heartbeat too old) lives with the
//! runner, which can ask the operating system. Times come from the caller.

use rusqlite::{params, OptionalExtension};

use crate::error::StoreError;
use crate::model::{RunId, RunStatus};
use crate::Store;

/// Who runs a run: one process, told apart by a token unique to it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LeaseHolder {
    /// Unique to the holding process (e.g. host, pid and start time).
    pub token: String,
    /// Its process id.
    pub pid: u32,
    /// The host it runs on.
    pub host: String,
}

/// A run's lease as stored.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Lease {
    /// The holder.
    pub holder: LeaseHolder,
    /// When it took the run (RFC 3339 UTC).
    pub acquired_at: String,
    /// Its last renewal (RFC 3339 UTC).
    pub heartbeat_at: String,
}

impl Store {
    /// Takes run `run` for `holder` at time `now`: refused while another
    /// holder's lease is live (`is_stale` says it is not). A stale lease,
    /// or the holder's own, is replaced. One transaction: two processes
    /// taking the same run at once cannot both succeed.
    ///
    /// # Errors
    /// [`StoreError::Leased`] naming the live holder;
    /// [`StoreError::UnknownRun`]; [`StoreError::RunState`] for a
    /// finished run; [`StoreError::Invalid`] for a bad time.
    pub fn acquire_lease(
        &self,
        run: &RunId,
        holder: &LeaseHolder,
        now: &str,
        is_stale: &dyn Fn(&Lease) -> bool,
    ) -> Result<(), StoreError> {
        self.check_time("acquired_at", now)?;
        let op = "take the run's lease";
        let tx = self.begin(op)?;
        let status = self.run_status(&tx, run)?;
        if status == RunStatus::Finished {
            return Err(self.run_state(run, status, "run it again"));
        }
        if let Some(current) = read(self, &tx, run)? {
            if current.holder.token != holder.token && !is_stale(&current) {
                return Err(StoreError::Leased {
                    path: self.path.clone(),
                    run: run.to_string(),
                    lease: Box::new(current),
                });
            }
        }
        tx.execute(
            "INSERT OR REPLACE INTO leases (run_id, token, pid, host, acquired_at, heartbeat_at)
             VALUES (?1, ?2, ?3, ?4, ?5, ?5)",
            params![run.as_str(), holder.token, holder.pid, holder.host, now],
        )
        .map_err(self.err(op))?;
        tx.commit().map_err(self.err(op))
    }

    /// Renews `holder`'s lease of `run` at `now`. `false` when the lease is
    /// no longer the holder's (another process took it over, judging this
    /// one dead): the holder must stop.
    ///
    /// # Errors
    /// [`StoreError::Invalid`] for a bad time; SQLite failures.
    pub fn renew_lease(&self, run: &RunId, token: &str, now: &str) -> Result<bool, StoreError> {
        self.check_time("heartbeat_at", now)?;
        self.writable()?;
        let n = self
            .conn
            .execute(
                "UPDATE leases SET heartbeat_at = ?3 WHERE run_id = ?1 AND token = ?2",
                params![run.as_str(), token, now],
            )
            .map_err(self.err("renew the run's lease"))?;
        Ok(n == 1)
    }

    /// Gives up `holder`'s lease of `run` (the run ended without being
    /// finished, e.g. it could not start). A lease of another holder is
    /// left alone.
    ///
    /// # Errors
    /// SQLite failures.
    pub fn release_lease(&self, run: &RunId, token: &str) -> Result<(), StoreError> {
        self.writable()?;
        self.conn
            .execute(
                "DELETE FROM leases WHERE run_id = ?1 AND token = ?2",
                params![run.as_str(), token],
            )
            .map_err(self.err("release the run's lease"))?;
        Ok(())
    }

    /// The lease of `run`, if any holder has it (a store made before
    /// leases existed has none).
    ///
    /// # Errors
    /// SQLite failures; [`StoreError::BadRow`].
    pub fn lease(&self, run: &RunId) -> Result<Option<Lease>, StoreError> {
        let has_table: bool = self
            .conn
            .query_row(
                "SELECT 1 FROM sqlite_schema WHERE type = 'table' AND name = 'leases'",
                [],
                |_| Ok(()),
            )
            .optional()
            .map_err(self.err("read the run's lease"))?
            .is_some();
        if !has_table {
            return Ok(None);
        }
        read(self, &self.conn, run)
    }
}

fn read(
    store: &Store,
    conn: &rusqlite::Connection,
    run: &RunId,
) -> Result<Option<Lease>, StoreError> {
    let row: Option<(String, i64, String, String, String)> = conn
        .query_row(
            "SELECT token, pid, host, acquired_at, heartbeat_at FROM leases WHERE run_id = ?1",
            [run.as_str()],
            |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?, r.get(3)?, r.get(4)?)),
        )
        .optional()
        .map_err(store.err("read the run's lease"))?;
    row.map(|(token, pid, host, acquired_at, heartbeat_at)| {
        Ok(Lease {
            holder: LeaseHolder {
                token,
                pid: u32::try_from(pid).map_err(|_| StoreError::BadRow {
                    path: store.path.clone(),
                    table: "leases",
                    row: run.to_string(),
                    column: "pid",
                    reason: format!("out of range: {pid}"),
                })?,
                host,
            },
            acquired_at,
            heartbeat_at,
        })
    })
    .transpose()
}
