# お客様表示（issue #30）: お客様に向けた2つ目の画面。お客様の言語で表示します（record 0132）。

customer-welcome = いらっしゃいませ
customer-welcome-line = 少々お待ちください。
customer-item = 商品
customer-qty = 数量
customer-amount = 金額
customer-rate = { $rate }対象
customer-rate-tax = 消費税等 { $tax }
customer-discount = 値引き
customer-total = 合計
customer-due = お支払い金額
customer-paid-so-far = お預かり済み
customer-change = お釣り
customer-tender-cash = 現金
customer-tender-card = カード
customer-tender-checking = 確認中…
customer-present-card = カードを読み取り機にかざしてください
customer-thank-you = ありがとうございました
customer-window-title = お客様表示
customer-display-open = お客様表示
customer-display-show = お客様表示を開く
customer-display-language = お客様表示の言語
customer-display-store-language = 店舗の言語
customer-display-at-start = PayDesk の起動時に開く
