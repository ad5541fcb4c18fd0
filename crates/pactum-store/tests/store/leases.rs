//! Run leases: one holder at a time, a stale lease is taken over, a
//! finished run keeps none.

use pactum_store::{LeaseHolder, RunStatus, StoreError};

use crate::common::*;

fn holder(token: &str, pid: u32) -> LeaseHolder {
    LeaseHolder {
        token: token.into(),
        pid,
        host: "h1".into(),
    }
}

#[test]
fn one_holder_at_a_time_until_its_lease_is_stale() {
    let (_dir, store) = file_store();
    let run = store.create_run(&new_run("banking", T0)).expect("create");
    let live = |_: &pactum_store::Lease| false;
    let stale = |_: &pactum_store::Lease| true;
    store
        .acquire_lease(&run, &holder("a", 10), T0, &live)
        .expect("first");
    // The holder itself may take it again (a retry).
    store
        .acquire_lease(&run, &holder("a", 10), T0, &live)
        .expect("same holder");
    let err = store
        .acquire_lease(&run, &holder("b", 11), T0, &live)
        .expect_err("held");
    match &err {
        StoreError::Leased { lease, .. } => {
            assert_eq!((lease.holder.pid, lease.holder.host.as_str()), (10, "h1"))
        }
        other => panic!("{other:?}"),
    }
    assert!(err.to_string().contains("pid 10 on h1"), "{err}");
    assert!(store
        .renew_lease(&run, "a", "2026-11-30T01:02:08Z")
        .expect("renew"));
    let l = store.lease(&run).expect("read").expect("held");
    assert_eq!(l.heartbeat_at, "2026-11-30T01:02:08Z");
    // Judged stale: b takes over, and a learns it lost the run.
    store
        .acquire_lease(&run, &holder("b", 11), T0, &stale)
        .expect("take over");
    assert!(!store
        .renew_lease(&run, "a", "2026-11-30T01:02:09Z")
        .expect("renew"));
    store.release_lease(&run, "a").expect("not a's to release");
    assert_eq!(
        store.lease(&run).expect("read").expect("held").holder.token,
        "b"
    );
    // Finishing a run drops its lease; a finished run cannot be taken.
    store
        .finish_run(&run, RunStatus::Finished, "2026-11-30T01:03:00Z")
        .expect("finish");
    assert_eq!(store.lease(&run).expect("read"), None);
    let err = store
        .acquire_lease(&run, &holder("c", 12), T0, &stale)
        .expect_err("finished");
    assert!(matches!(err, StoreError::RunState { .. }), "{err:?}");
}
