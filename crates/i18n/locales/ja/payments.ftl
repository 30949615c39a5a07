# 決済履歴 (F2): 本日の決済と、その詳細。
payments-col-time = 時刻
payments-col-amount = 金額
payments-col-state = 状態
payments-col-attempts = 試行
payments-empty = 本日の決済はまだありません。
payments-row-label = { $time } の決済 { $amount }、{ $state }
payment-checkout-key = 決済キー
payment-psp-ref = 決済代行会社の参照番号
payment-refunded = 返金済み
payment-timeline = 経過
refund-amount = 返金額 (上限 { $amount })
refund-partial = この金額を返金
refund-full = 全額返金
refund-help = 返金は 1 回だけ送られます。ボタンは決済代行会社の応答を待ち、確認中の返金が終わるまで次の返金はできません。
refund-nothing-left = 返金できる金額は残っていません。
timeline-label = 決済の経過: { $events }
timeline-then = {" → "}
