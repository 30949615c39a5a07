# 領収書: お客様の求めでレジが印字する、レシートとは別の書類 (crates/receipt/src/ryoshusho、店舗の言語)。
ryoshusho-title = 領収書
ryoshusho-reprint = 再発行
ryoshusho-number = No.{ $number }
ryoshusho-addressee = { $name } 様
ryoshusho-addressee-blank = 様
ryoshusho-amount = { $amount }-
ryoshusho-description = 但し { $text }
ryoshusho-received = 上記正に領収いたしました
ryoshusho-breakdown = 内訳
ryoshusho-cash = 現金
ryoshusho-card = クレジットカード決済
ryoshusho-taxable = { $rate }対象
ryoshusho-tax-included = 内消費税
ryoshusho-exempt = 非課税
ryoshusho-stamp = 収入印紙
ryoshusho-stamp-duty = 印紙税額 { $duty }
ryoshusho-receipt-no = レシート番号 { $number }
