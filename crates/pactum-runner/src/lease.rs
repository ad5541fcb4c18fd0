//! Holding a run: the lease this process takes in the store, and what
//! makes another holder's lease stale (`docs/store.md`, "Leases").
//!
//! A lease is stale — and may be taken over — when its holder's process is
//! gone (same host: no process has its pid) or its heartbeat is older than
//! [`LEASE_STALE_AFTER`] (any host: the holder stopped renewing it). So a
//! run whose process was killed with `kill -9` can be resumed at once on
//! the same machine, and at worst a minute later from another one.

use std::time::{Duration, SystemTime};

use pactum_store::{Lease, LeaseHolder};

/// How often a running process renews its lease.
pub const LEASE_HEARTBEAT: Duration = Duration::from_secs(5);

/// A lease not renewed for this long is stale, whoever holds it.
pub const LEASE_STALE_AFTER: Duration = Duration::from_secs(60);

/// This process as a lease holder: its pid, its host, and a token no other
/// process shares (host, pid and the time it was made).
pub fn this_holder() -> LeaseHolder {
    let pid = std::process::id();
    let host = host_name();
    let nanos = SystemTime::now()
        .duration_since(SystemTime::UNIX_EPOCH)
        .map(|d| d.as_nanos())
        .unwrap_or_default();
    LeaseHolder {
        token: format!("{host}/{pid}/{nanos}"),
        pid,
        host,
    }
}

/// This machine's name (`uname -n`).
pub fn host_name() -> String {
    #[cfg(unix)]
    {
        rustix::system::uname()
            .nodename()
            .to_string_lossy()
            .into_owned()
    }
    #[cfg(not(unix))]
    {
        std::env::var("COMPUTERNAME").unwrap_or_else(|_| "localhost".into())
    }
}

/// Whether `lease` may be taken over by `me` at `now`: its holder's
/// process is gone (same host), or its heartbeat is older than
/// [`LEASE_STALE_AFTER`] or unreadable.
pub fn is_stale(lease: &Lease, me: &LeaseHolder, now: SystemTime) -> bool {
    if lease.holder.host == me.host && !process_alive(lease.holder.pid) {
        return true;
    }
    match humantime::parse_rfc3339(&lease.heartbeat_at) {
        Ok(beat) => now
            .duration_since(beat)
            .is_ok_and(|age| age > LEASE_STALE_AFTER),
        Err(_) => true,
    }
}

/// Whether a process with this pid exists on this machine.
fn process_alive(pid: u32) -> bool {
    #[cfg(unix)]
    {
        let Some(pid) = i32::try_from(pid)
            .ok()
            .and_then(rustix::process::Pid::from_raw)
        else {
            return false;
        };
        match rustix::process::test_kill_process(pid) {
            Ok(()) => true,
            Err(e) => e != rustix::io::Errno::SRCH,
        }
    }
    #[cfg(not(unix))]
    {
        // No way to ask here: only the heartbeat decides.
        let _ = pid;
        true
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn lease(pid: u32, host: &str, beat: &str) -> Lease {
        Lease {
            holder: LeaseHolder {
                token: "t".into(),
                pid,
                host: host.into(),
            },
            acquired_at: beat.into(),
            heartbeat_at: beat.into(),
        }
    }

    #[test]
    fn a_lease_is_stale_when_its_holder_is_gone_or_silent() {
        let me = this_holder();
        let now = SystemTime::now();
        let fresh = humantime::format_rfc3339(now).to_string();
        let old = humantime::format_rfc3339(now - Duration::from_secs(120)).to_string();
        // This very process: alive, fresh.
        assert!(!is_stale(&lease(me.pid, &me.host, &fresh), &me, now));
        // Alive but silent for two minutes.
        assert!(is_stale(&lease(me.pid, &me.host, &old), &me, now));
        // Another host, fresh: its pid means nothing here.
        assert!(!is_stale(
            &lease(u32::MAX - 1, "elsewhere", &fresh),
            &me,
            now
        ));
        // A pid no process has, on this host.
        let mut child = std::process::Command::new("true").spawn().expect("spawn");
        let gone = child.id();
        child.wait().expect("wait");
        assert!(is_stale(&lease(gone, &me.host, &fresh), &me, now));
        // An unreadable heartbeat is not a live holder.
        assert!(is_stale(&lease(me.pid, "elsewhere", "yesterday"), &me, now));
        assert_ne!(this_holder().token, me.token);
    }
}
