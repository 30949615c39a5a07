// The app's own commands are listed here, so tauri-build generates one
// `allow-<command>` permission per command; capabilities/default.json grants exactly
// the ones the UI uses. Without an app manifest every command would be allowed.
const COMMANDS: &[&str] = &[
    "get_catalog",
    "get_cart",
    "scan",
    "set_quantity",
    "clear_cart",
    "get_status",
    "charge",
    "try_another_card",
    "current_checkout",
    "new_sale",
    "list_payments",
    "get_payment",
    "refund",
    "get_report",
    "get_sale",
    "pay_cash",
    "pay_card",
    "cancel_sale",
    "get_tender_day",
    "get_settings",
    "save_settings",
    "about",
    "get_messages",
    "set_language",
    "get_backoffice",
    "pair_backoffice",
    "set_dining",
    "set_line_discount",
    "set_sale_discount",
    "get_receipt",
    "print_receipt",
    "save_printer",
    "list_catalog",
    "save_item",
    "import_catalog",
    "export_catalog",
    "whoami",
    "staff_list",
    "sign_in",
    "sign_out",
    "change_pin",
    "create_owner",
    "get_store",
    "save_store",
];

fn main() {
    tauri_build::try_build(
        tauri_build::Attributes::new()
            .app_manifest(tauri_build::AppManifest::new().commands(COMMANDS)),
    )
    .expect("failed to run tauri-build");
}
