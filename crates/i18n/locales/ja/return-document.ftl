# 返品伝票 (適格返還請求書): 返品でお客様に返した金額の書類 (crates/receipt/src/return_doc、店舗の言語)。
return-document-title = 返品伝票
return-document-subtitle = (適格返還請求書)
return-document-number = No.{ $number }
return-document-sale = 元のお取引 { $date }
return-document-sale-no = 元のレシート番号 { $number }
# 入れ替えたレジの取引 (record 0144)。
return-document-from-register = 旧レジ { $name } の取引
return-document-lines = 返品の明細
return-document-quantity = { $name } ×{ $quantity }
return-document-total = 返金額
# 交換の返品（記録 0123）：全額が返金されたわけではない。
return-document-total-exchange = 返品金額
return-document-taxable = { $rate }対象
return-document-tax = 内消費税
return-document-exempt = 非課税
return-document-card = クレジットカードへ返金
return-document-cash = 現金で返金
return-document-store = その他の支払方法で返金
return-document-exchange = お買上げ { $number } に充当
receipt-exchange-credit = 交換 { $number }
