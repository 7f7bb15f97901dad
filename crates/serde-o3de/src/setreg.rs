//! Settings registry files.
