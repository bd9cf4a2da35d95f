//! TODO(windows): being written.
