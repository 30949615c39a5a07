# 画面まわり: タブ、スキップリンク、起動、言語。
skip-to-scan = バーコード入力欄へ移動
nav-screens = 画面
tab-register = レジ
tab-register-title = レジ (F1)
tab-payments = 決済履歴
tab-payments-title = 決済履歴 (F2)
tab-report = 精算
tab-report-title = 精算 (F3)
tab-settings = 設定
tab-settings-title = 設定 (F4)
about-title = PayDesk について
start-failed = PayDesk を起動できませんでした: { $error }
language-label = 言語
language-en = English
language-ja = 日本語
language-changed = 画面を日本語に切り替えました。
language-unknown = 言語「{ $lang }」はありません。English か 日本語 を選んでください。
settings-not-saved = 設定を保存できませんでした ({ $error })。何も変更されていません。

## ステータスバー。
status-psp-refusing = PSP がこのレジを拒否しています
status-psp-checking = PSP: 確認中…
status-psp-online = PSP 接続中
status-psp-offline = PSP オフライン
status-pending-forward = 送信待ち: { $count } 件
status-last-sync = 最終同期: { $time }
status-last-sync-never = 最終同期: なし
status-embedded = テスト用 PSP · 障害: { $profile }
status-psp-url = PSP: { $url }
status-settings-waiting = 新しい設定の反映待ち
