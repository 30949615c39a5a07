//! The owner's web dashboard (record 0043): static HTML, CSS and one script, all served
//! from this binary under a strict Content-Security-Policy (no inline script or style),
//! reading one JSON document. Sign-in is a plain form that sets an HttpOnly,
//! SameSite=Strict cookie.
pub mod data;
pub mod pages;
