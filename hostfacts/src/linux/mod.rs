//! TODO(linux): being written.
