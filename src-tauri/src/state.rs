//! What the app holds while it runs: the catalog, the cart, and (once started) the
//! register engine with its embedded PSP.

use std::path::PathBuf;
use std::sync::Mutex;

use serde::Serialize;

use crate::catalog::{Cart, Catalog};
use crate::config::Options;

pub struct AppState {
    pub data_dir: PathBuf,
    pub catalog: Catalog,
    pub cart: Mutex<Cart>,
    pub psp_url: String,
    pub fault_profile: String,
}

#[derive(Debug, Clone, Serialize)]
pub struct StatusView {
    pub psp_online: bool,
    pub psp_url: String,
    pub psp_embedded: bool,
    pub fault_profile: String,
    pub pending_forward: u32,
    pub last_sync: Option<String>,
    pub data_dir: String,
}

impl AppState {
    pub fn start(data_dir: PathBuf, opts: &Options) -> Result<AppState, Box<dyn std::error::Error>> {
        std::fs::create_dir_all(&data_dir)?;
        Ok(AppState {
            data_dir,
            catalog: Catalog::demo(),
            cart: Mutex::new(Cart::default()),
            psp_url: opts.psp_url.clone().unwrap_or_default(),
            fault_profile: opts.fault_profile.clone(),
        })
    }

    pub fn status(&self) -> StatusView {
        StatusView {
            psp_online: false,
            psp_url: self.psp_url.clone(),
            psp_embedded: true,
            fault_profile: self.fault_profile.clone(),
            pending_forward: 0,
            last_sync: None,
            data_dir: self.data_dir.display().to_string(),
        }
    }
}
