//! Typed model of O3DE prefabs.
