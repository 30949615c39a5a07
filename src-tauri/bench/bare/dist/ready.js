document.body.dataset.ready = 'true';
