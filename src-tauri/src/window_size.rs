//! The main window fits the screen it opens on
//! (docs/decisions/0021-cashier-screens-and-outcome-panels.md). tauri.conf.json asks for
//! 1280×800, the size the screens are laid out for; on a smaller screen (1024×768, a
//! desktop panel taking part of it) that window would open with its edges, the status
//! bar and Charge's row, off the screen. It is made as large as the screen's work area
//! allows instead, never smaller than the configured minimum (1024×700).

use tauri::{PhysicalPosition, PhysicalSize, Runtime, WebviewWindow};

/// The inner size to give a window whose inner size is `inner` and whose frame adds
/// `frame` (outer minus inner), on a work area of `area`: as large as it was, at most
/// what the area holds with the frame.
pub fn fitted(inner: PhysicalSize<u32>, frame: PhysicalSize<u32>, area: PhysicalSize<u32>) -> PhysicalSize<u32> {
    PhysicalSize::new(
        inner.width.min(area.width.saturating_sub(frame.width)),
        inner.height.min(area.height.saturating_sub(frame.height)),
    )
}

/// Shrinks `w` to its monitor's work area when it is larger, and moves it to the area's
/// corner. A window system that says nothing of its monitors leaves the window as it is.
pub fn fit_to_screen<R: Runtime>(w: &WebviewWindow<R>) -> tauri::Result<()> {
    let Some(monitor) = w.current_monitor()?.or(w.primary_monitor()?) else { return Ok(()) };
    let area = monitor.work_area();
    let (inner, outer) = (w.inner_size()?, w.outer_size()?);
    let frame = PhysicalSize::new(outer.width.saturating_sub(inner.width), outer.height.saturating_sub(inner.height));
    let size = fitted(inner, frame, area.size);
    if size != inner && size.width > 0 && size.height > 0 {
        w.set_size(size)?;
        w.set_position(PhysicalPosition::new(area.position.x, area.position.y))?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    const FRAME: PhysicalSize<u32> = PhysicalSize { width: 0, height: 30 };

    #[test]
    fn a_window_larger_than_the_screen_is_made_to_fit_it() {
        let want = PhysicalSize::new(1280, 800);
        assert_eq!(fitted(want, FRAME, PhysicalSize::new(1024, 768)), PhysicalSize::new(1024, 738));
        assert_eq!(fitted(want, PhysicalSize::new(0, 0), PhysicalSize::new(1024, 768)), PhysicalSize::new(1024, 768));
    }

    #[test]
    fn a_window_that_fits_keeps_its_size() {
        let want = PhysicalSize::new(1280, 800);
        assert_eq!(fitted(want, FRAME, PhysicalSize::new(1920, 1080)), want);
    }
}
