//! Prints this Windows machine's storage facts snapshot as JSON (`--rows`: the raw CIM rows
//! the snapshot is mapped from, to turn a real machine into a test fixture).
//!
//! `cargo run -p spindle-collectors --example wmi_dump [-- --rows]`

use std::process::ExitCode;

use spindle_collectors::windows;

fn main() -> ExitCode {
    let rows = std::env::args().any(|a| a == "--rows");
    let json = if rows {
        windows::collect_rows().map(|r| serde_json::to_string_pretty(&r))
    } else {
        windows::collect_live().map(|s| serde_json::to_string_pretty(&s))
    };
    match json {
        Ok(Ok(text)) => {
            println!("{text}");
            ExitCode::SUCCESS
        }
        Ok(Err(e)) => {
            eprintln!("wmi_dump: cannot write JSON: {e}");
            ExitCode::FAILURE
        }
        Err(e) => {
            eprintln!("wmi_dump: {e}");
            ExitCode::FAILURE
        }
    }
}
