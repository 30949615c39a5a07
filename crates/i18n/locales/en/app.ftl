# The window around the screens: tabs, skip link, start-up, languages.
skip-to-scan = Skip to the barcode field
nav-screens = Screens
tab-register = Register
tab-register-title = Register (F1)
tab-payments = Payments
tab-payments-title = Payments (F2)
tab-report = End of day
tab-report-title = End of day (F3)
tab-settings = Settings
tab-settings-title = Settings (F4)
about-title = About PayDesk
start-failed = PayDesk could not start: { $error }
language-label = Language
language-en = English
language-ja = 日本語
language-changed = The screen is now in English.
language-unknown = There is no language “{ $lang }” here: choose English or 日本語.
settings-not-saved = The settings could not be saved ({ $error }). Nothing changed.

## The status bar.
status-psp-refusing = PSP refuses this register
status-psp-checking = PSP: checking…
status-psp-online = PSP online
status-psp-offline = PSP offline
status-pending-forward = Waiting to be forwarded: { $count }
status-last-sync = Last sync: { $time }
status-last-sync-never = Last sync: never
status-embedded = Embedded test PSP · faults: { $profile }
status-psp-url = PSP: { $url }
status-settings-waiting = New settings waiting
