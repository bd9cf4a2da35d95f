//! Hostile secrets: a password wherever a user may paste one is refused and never printed.

use std::process::Command;

/// Item 3: `password = …`, a misspelled `pasword = …`, a password pasted into `password_env`,
/// and a password given to `--password-env`: exit 2, and the value appears nowhere on the
/// terminal or in CI logs.
#[test]
fn item03_a_password_in_an_inventory_or_flag_is_refused_and_never_printed() {
    let dir = tempfile::tempdir().unwrap();
    let inventory = dir.path().join("servers.toml");
    std::fs::write(
        &inventory,
        "[[server]]\nname = \"sql01\"\npassword = \"hunter2-one\"\n\n\
         [[server]]\nname = \"sql02\"\npasword = \"hunter2-two\"\n\n\
         [[server]]\nname = \"sql03\"\nuser = \"spindle\"\npassword_env = \"hunter2 three\"\n",
    )
    .unwrap();
    let o = Command::new(env!("CARGO_BIN_EXE_spindle"))
        .args(["check", "--inventory"])
        .arg(&inventory)
        .env("NO_COLOR", "1")
        .output()
        .unwrap();
    let shown = format!("{}{}", String::from_utf8_lossy(&o.stdout), String::from_utf8_lossy(&o.stderr));
    assert_eq!(o.status.code(), Some(2), "{shown}");
    assert!(shown.contains("3 errors"), "{shown}");
    assert!(!shown.contains("hunter2"), "{shown}");

    let o = Command::new(env!("CARGO_BIN_EXE_spindle"))
        .args(["check", "--server", "127.0.0.1,1", "--user", "spindle", "--password-env", "hunter2-four"])
        .env("NO_COLOR", "1")
        .output()
        .unwrap();
    let shown = format!("{}{}", String::from_utf8_lossy(&o.stdout), String::from_utf8_lossy(&o.stderr));
    assert_eq!(o.status.code(), Some(2), "{shown}");
    assert!(!shown.contains("hunter2"), "{shown}");
}
