# 決済パネルの経過と結果 (Rust が作る文)。エンジン自身の理由 (不承認やネットワーク
# エラーの理由) は英語のまま表示されます。
progress-attempt = 試行 { $n }: キー { $key }… で決済代行会社に送信中
progress-backoff = { $seconds } 秒待ってから、同じキーで再試行します。
progress-replayed = 請求済み — 再送: 決済代行会社が最初の応答を返したため、二重請求はありません。
progress-background = まだ確定した応答がありません ({ $reason })。レジが同じキーでバックグラウンドで確認を続けます。
progress-offline = 決済代行会社に接続できません: { $amount } をオフラインで受付けました。接続が戻りしだい同じキーで送信します。
progress-forward-declined = オフライン決済 ({ $key }…) は送信時に承認されませんでした。別の方法でお支払いいただいてください。
progress-forwarded = オフライン決済 { $key }… を送信しました: { $state }。
progress-resolved = { $state } ({ $via })。
progress-via-replay = 決済代行会社の再送応答で確認
progress-via-search = 決済代行会社の記録の検索で確認
progress-via-event = 決済代行会社のイベントで確認
progress-via-answer = 決済代行会社が応答
progress-refund = 返金 { $state }。
outcome-declined-default = カードが承認されませんでした
outcome-failed-default = 決済代行会社が要求を拒否しました。
outcome-unknown-default = 決済代行会社からまだ確定した応答がありません。
outcome-note-replayed = カードへの請求は 1 回です。同じキーで { $attempts } 回試行し、決済代行会社が最初の応答を再送したため、二重請求はありません。
outcome-note-attempts = 同じキーで { $attempts } 回試行し、請求は 1 回です。
receipt-status-offline = オフライン承認
receipt-status-approved = 承認
receipt-status-authorized = オーソリ済み
receipt-status-declined = 不承認
receipt-status-failed = 未決済
receipt-status-pending = 確認中
