# 支払い済みの会計のレシート表示と、印刷・再発行のボタン。
receipt-screen-title = レシート
receipt-screen-print = レシートを印刷
receipt-screen-reprint = 再発行
receipt-screen-printing = 印刷中…
receipt-screen-of-sale = 会計 { $id } のレシート
receipt-screen-none = レシートを作成できません: { $why }
