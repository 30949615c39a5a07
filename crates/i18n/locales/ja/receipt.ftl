# 印字するレシートの定型語 (crates/receipt)。レシートは画面の言語ではなく店舗の言語。
receipt-title = 領収書
receipt-reprint = 【再発行】
receipt-registration = 登録番号
receipt-tel = TEL
receipt-receipt-no = No.
receipt-eat-in = 店内飲食
receipt-line-discount = 値引
receipt-subtotal = 小計
receipt-sale-discount = お会計値引
receipt-total-label = 合計
receipt-taxable = { $rate }対象
receipt-taxable-excl = { $rate }対象(税抜)
receipt-tax-included = 内消費税
receipt-tax = 消費税
receipt-exempt = 非課税
receipt-reduced-mark = ※
receipt-reduced-legend = ※は軽減税率対象商品
receipt-cash = 現金
receipt-card-tender = クレジット
receipt-card-aid = AID
receipt-card-arc = 応答コード
receipt-card-auth-code = 承認番号
receipt-change = お釣り
receipt-store-tender = その他
receipt-slip = 伝票番号
receipt-no-change = お釣りなし
# 会計を担当したスタッフとレジ番号 (record 0127)。
receipt-cashier = 担当者:
receipt-register = レジ
# 免税の会計とその理由 (record 0135)。
receipt-exempt-reason = 免税: { $reason }
