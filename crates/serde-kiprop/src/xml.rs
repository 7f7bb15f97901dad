//! XML debug form (placeholder, replaced below).
