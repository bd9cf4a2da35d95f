//! spindle tried as an attacker would: hostile snapshots, servers, plugins, files and signals.
//! Every case expects a clear error naming the culprit (exit status 2), no panic, no hang, no
//! unbounded memory, every other host's report intact, nothing half-written, no secret printed.
//! One module per area; each case names the item of the hardening issue it covers.

mod files;
mod links;
mod plugins;
mod secrets;
mod servers;
mod text;
