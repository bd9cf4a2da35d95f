//! The workspace as it stands keeps the layering `cargo xtask check-arch` enforces (the breaches
//! it must catch are its unit tests).

mod common;

use common::*;

#[test]
fn every_crate_edge_of_the_workspace_points_down() {
    let o = xtask(&repo_root(), &["check-arch"]);
    assert_eq!(o.status.code(), Some(0), "{}{}", stdout(&o), stderr(&o));
    assert!(stdout(&o).contains("every edge points down"), "{}", stdout(&o));
}
