# 支払い済みの会計のレシート表示と、印刷・再発行のボタン。
receipt-title = レシート
receipt-print = レシートを印刷
receipt-reprint = 再発行
receipt-printing = 印刷中…
receipt-of-sale = 会計 { $id } のレシート
receipt-none = レシートを作成できません: { $why }
