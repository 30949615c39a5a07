# 販売画面での商品検索: 検索欄とカテゴリのタブ (record 0133).
search-label = 商品を検索
search-placeholder = 商品名またはコードで検索
search-tabs-label = カテゴリ
search-all = すべて
search-none = 「{ $query }」に一致する商品はありません。
search-error-empty = 商品名の一部かコードを入力してください。
search-error-long = 検索は { $max } 文字までです。
search-error-control = 検索に制御文字は使えません。
search-error-category = そのカテゴリはありません。
search-category-field = カテゴリ
search-category-none = (なし)
