# 免税の会計とその理由 (record 0135): 再販売証明書、外交官の免税カード、非営利団体の免税番号など。
# 店長が行うか、店長の承認が要る。
exempt-button = 免税…
exempt-button-title = お客様が示す理由で、この会計を税なしにする (店長の承認)
exempt-title = 免税の会計
exempt-help = この会計が非課税となる理由 (証明書やカードとその番号) を記録します。店長が承認します。
exempt-reason = 理由 (3〜200文字)
exempt-save = 免税にする
exempt-clear = 課税に戻す
exempt-cancel = キャンセル
exempt-tax = 消費税
exempt-badge = 免税: { $reason }
exempt-done-set = この会計は免税です: { $total } のお支払い。
exempt-done-clear = この会計は課税に戻りました: { $total } のお支払い。
exempt-error-not-allowed = この店舗は免税の会計を扱いません (店舗設定)。
exempt-error-tendered = この会計はすでに支払いがあるため、税を変えられません。
exempt-error-paid = この会計は支払い済みのため、税を変えられません。
exempt-error-reason = 理由を3〜200文字で入力してください (制御文字は使えません)。
