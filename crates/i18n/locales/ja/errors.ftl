# 拒否されたコマンドがレジ担当者に伝える文 (AppError の message。code は英語のまま)。
error-unknown-item = コード「{ $code }」の商品はありません。コードを確認するか、一覧から商品を選んでください。
error-label-price-differs = ラベルの { $sku } の価格は { $label } です（マスタは { $catalog }）。ラベルをスキャンするとその価格で登録されます。数量はその行で変更してください。
error-label-weight = { $sku } は重量ラベル（{ $grams } g）です。スキャン欄で読み取ると重さで登録されます。
error-cart-locked = 決済の処理中は明細を変更できません。先に決済を完了するか、結果を確定してください。
error-cart-empty = 明細が空です。先に商品をスキャンするか選んでください。
error-no-checkout = 続ける決済が画面にありません。
error-sale-changed = この画面を表示した後に取引が変わりました (表示 { $seen } 件、現在 { $now } 件)。何も受け取っていません。残額を確認してもう一度お試しください。
error-tender-in-flight = このレジで決済がまだ処理中です。応答を待ってください。ほかには何も受け取っていません。
error-engine-invalid-input = 入力を受け付けられませんでした: { $detail }。
error-unknown-payment = その決済はこのレジの記録にありません。
error-refund-exceeds = 返金できる額を超えています。この決済の残りは最大 { $amount } です。
error-refund-in-progress = この決済の返金を確認中です。終わるまで次の返金はお待ちください。
error-wrong-state = この決済は今は{ $attempted ->
        [capture] 売上確定
        [cancel] 取消
       *[refund] 返金
    }できません: 状態は「{ $state }」です。
error-previous-outcome-unknown = 直前のカードに請求されたかどうか、まだ分かりません。もう一度請求すると二重請求になるおそれがあります。レジが確認するのを待つか、理由を入力して続けてください。
error-already-paid = この決済はすでに成立しています。新しい決済は不要です。
error-later-payment = この決済の後に始めた決済があり、「{ $state }」で終わっています。その決済からやり直してください。
error-offline-refused = 決済代行会社に接続できず、この決済はオフラインでは受け付けられません ({ $reason })。{ $detail }
error-psp-config = 決済代行会社がレジの設定を拒否しました ({ $detail })。設定の PSP URL とキーを確認してください。
error-psp-rejected = 決済代行会社がこの要求を拒否しました: { $detail }。
error-alarm = 停止: 異常があります。責任者を呼んでください。{ $detail }
error-ledger = 保存できませんでした ({ $detail })。二重請求はありません。もう一度お試しください。
error-tender-exceeds-due = この取引の残額を超えています。残りは最大 { $amount } です。
error-tender-unknown-outstanding = この取引の直前のカードに請求されたかどうか、まだ分かりません。今ほかの支払いを受けると二重請求になるおそれがあります。待つか、理由を入力して続けてください。
error-sale-complete = この取引はすでに全額お支払い済みです。
error-sale-canceled = この取引は取り消されました。
error-sale-refund-exceeds = この取引で返金できる額を超えています。
error-unresolved = 決済 { $key } が成立したかどうか、まだ分かりません ({ $detail })。再度請求しないでください。レジが同じキーで確認します。
error-backoffice-unreachable = バックオフィスに接続できません: { $why }。アドレスとネットワークを確認してください。販売はそのまま続けられます。
error-backoffice-refused = バックオフィスが拒否しました: { $why }
error-tax-locked = この取引の税額は確定しています（支払いを受け取り済み）。イートイン／テイクアウトと割引は変更できません。
error-printer-not-set = レシートプリンターが設定されていません。「商品管理」タブ(F5)の「店舗」→「レシートプリンター」でアドレス（ホスト:ポート）を入力してください。
error-item-published = 「{ $sku }」は本部で管理されています。本部で変更すると、次の同期でこのレジに届きます。
error-tax-published = 税の設定（価格表示、端数処理、登録番号、税率）は本部で管理されています。本部で変更してください。
error-pin-published = { $name }さんの暗証番号は本部で管理されています。本部で変更すると、店舗のすべてのレジに次の同期で届きます。
# 置き換えたレジからの復元 (design §9.15): バックオフィスの拒否をコードごとに。
error-not-paired = このレジはバックオフィスとペアリングされていません。先に「設定 → バックオフィス」でペアリングしてください。
error-restore-unknown = この店舗に置き換え済みのレジ「{ $from }」はありません。名前を確かめるか、IDを入力してください。
error-restore-ambiguous = この店舗には「{ $from }」という名前の置き換え済みレジが複数あります。復元元のIDを入力してください（バックオフィスのダッシュボードに表示されます）。
error-restore-in-service = 「{ $from }」はまだ使用中です。ここに履歴を復元するには、店舗のオーナーがバックオフィスで置き換え済みにしてください。
error-restore-itself = このレジ自身の履歴は復元できません。このレジが置き換える前のレジを入力してください。
error-tender-type-unknown = 支払方法 { $id } はありません。支払画面を開き直してください。
error-tender-type-inactive = { $name } は設定で停止されています。別の方法で受け取ってください。
error-tender-type-name-taken = { $name } という支払方法はすでにあります。
error-staff-published = { $name }さんは本部で管理されています。本部で変更すると、店舗のすべてのレジに次の同期で届きます。
error-staff-unknown = { $name } という名前のスタッフはいません。
error-staff-last-owner = { $name }さんは店舗で最後の在籍オーナーです。先に別のスタッフをオーナーにしてください。
error-staff-retired = { $name }さんは退職済みのため、変更できません。
error-staff-name-retired = { $name }さんは退職済みです。新しいスタッフには別の名前を付けてください。
error-staff-same-role = { $name }さんの役割はすでに{ $role }です。
