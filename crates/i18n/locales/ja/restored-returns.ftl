# 置き換えたレジから復元した会計の返品（記録 0144）。
restored-return-title = レジ { $name } のレシート { $number } の返品
restored-return-help = この会計は、このレジが置き換えたレジ { $name } のものです。カードから先に返金し（各カードの残りまで）、残りはこのドロアから現金で返します。
restored-return-open = 返品
restored-return-sale = 会計 { $sale }（{ $time }）、{ $total }
restored-col-return = 返品
restored-input-source = 置き換えたレジはその ID で指定します（1～{ $max } 文字）。
restored-error-unknown-source = このレジはレジ { $register } から復元していません。
restored-error-not-finished = レジ { $register } からの復元が終わっていません。その会計を返品する前に復元を終えてください（設定 → バックオフィス）。
restored-error-unknown-sale = レジ { $register } の復元した履歴に会計 { $sale } はありません。
restored-error-ambiguous = レシート { $number } は複数の置き換えたレジの履歴にあります。そのレジの支払一覧から会計を開いてください。
restored-error-canceled = レジ { $register } の会計 { $sale } は取り消されています。返品できるものはありません。
restored-error-not-valued = レジ { $register } の会計 { $sale } はこの店の税設定で計算できません。返品していません。バックオフィスで返品してください。
restored-error-unsettled = レジ { $register } の会計 { $sale } のカード支払の結果が不明です。返品していません。
restored-error-store-tender = レジ { $register } の会計 { $sale } は店舗の支払方法で一部支払われています。その分はバックオフィスで返してください。返品していません。
restored-error-refund-exceeds = レジ { $register } の会計 { $sale } の返せる残りがこの返品より少ないです。返品していません。
restored-exchange-help = または先に新しい商品をレジに登録してください。ここで選んだ商品の金額がその支払いに充てられ、差額だけをレジで受け取るか返金します（レジ { $name } の会計のカードから先に、残りはこのドロアから現金で）。
restored-error-credit-not-given-back = 会計 { $cart } はレジ { $register } の会計 { $sale } の商品との交換で一部支払われています。その分はこのレジでは返せません。返金していません。
