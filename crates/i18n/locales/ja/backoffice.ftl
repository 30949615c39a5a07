# 設定 → バックオフィス (design §9.12, §9.15): ペアリング、ステータスバーの同期表示、
# 置き換えたレジの履歴の復元と閲覧。
backoffice-title = バックオフィス
backoffice-url = バックオフィスのアドレス
backoffice-code = ペアリングコード（店舗オーナーから）
backoffice-pair = ペアリング
backoffice-pairing = ペアリング中…
backoffice-paired = 店舗 { $store } のレジ「{ $name }」として { $url } とペアリング済みです。
backoffice-pill-unreachable = バックオフィスに接続できません · 送信待ち { $queued } 件
backoffice-pill-error = バックオフィスとの同期に失敗 · 送信待ち { $queued } 件
backoffice-pill-sending = バックオフィス: 送信待ち { $queued } 件
backoffice-pill-synced = バックオフィス: { $ago }に同期
backoffice-pill-never = バックオフィス: まだ同期していません
backoffice-ago-s = { $n } 秒前
backoffice-ago-min = { $n } 分前
backoffice-ago-h = { $n } 時間前
backoffice-restore-title = 置き換えたレジから履歴を復元
backoffice-restore-help = 故障したレジを置き換えたレジで使います。バックオフィスにある旧レジの決済をここにコピーして参照できます。再送信や二重計上はされません。
backoffice-restore-from = 置き換えたレジ（名前またはID）
backoffice-restore = 復元
backoffice-restoring = 復元中…
backoffice-history-title = 復元した履歴
backoffice-history-none = このレジに復元した履歴はありません。
backoffice-source-complete = 完了
backoffice-source-partial = 未完了: 残りはもう一度復元してください
backoffice-source-rows = { $total } 行中 { $held } 行
backoffice-source-when = { $when } に復元
backoffice-source-show = 決済を表示
backoffice-source-name = 「{ $name }」
backoffice-payments-of = 「{ $name }」の決済（新しい順）
backoffice-payments-none = この履歴に決済はありません。
backoffice-col-key = チェックアウトキー
backoffice-col-amount = 金額
backoffice-col-state = 最後の状態
backoffice-col-time = 日時
backoffice-state-none = 状態の送信なし
backoffice-older = 古い決済
# 復元の結果（Rust で整形: 件数で文が変わる）。
backoffice-restored = { $count ->
    [0] 「{ $name }」から新しく復元するものはありません。
   *[other] 「{ $name }」から { $count } 行を復元しました。
}
backoffice-restored-nothing = 「{ $name }」から新しく復元するものはありません。履歴の { $total } 行はすべてこのレジにあります。
backoffice-restored-complete = 履歴はすべてここにあります: { $total } 行。
backoffice-restored-partial = { $total } 行中 { $held } 行がここにあります。残りはもう一度復元してください。
