;;; pypto-eglot.el --- Eglot set-up for the PyPTO language server  -*- lexical-binding: t; -*-

;; Version: 0.1.0
;; Package-Requires: ((emacs "27.1") (eglot "1.9"))
;; Keywords: languages, tools

;;; Commentary:

;; Registers pypto-lsp with Eglot for Python buffers and adds what Eglot lacks for it:
;; code lenses (Eglot has no code-lens support, so `pypto-eglot-lens-mode' asks for them
;; itself and shows each one as a line above its scope) and the outlined program, which the
;; server returns through its custom request `pypto/outlinedProgram'.
;;
;;   (require 'pypto-eglot)
;;   (setq pypto-eglot-server-command '("/path/to/venv/bin/pypto-lsp"))
;;   (pypto-eglot-setup)
;;   (add-hook 'python-mode-hook #'eglot-ensure)
;;   (add-hook 'eglot-managed-mode-hook #'pypto-eglot-lens-mode)

;;; Code:

(require 'eglot)
(require 'jsonrpc)
(require 'seq)

(defgroup pypto-eglot nil
  "PyPTO language server through Eglot."
  :group 'eglot
  :prefix "pypto-eglot-")

(defcustom pypto-eglot-server-command '("pypto-lsp")
  "Command line that starts pypto-lsp on stdio."
  :type '(repeat string))

(defcustom pypto-eglot-major-modes '(python-mode python-ts-mode)
  "Major modes whose buffers Eglot hands to pypto-lsp."
  :type '(repeat symbol))

(defcustom pypto-eglot-lens-idle-delay 0.5
  "Seconds of idle time after an edit before the code lenses are requested again."
  :type 'number)

(defface pypto-eglot-lens-face '((t :inherit shadow))
  "Face of code-lens lines.")

(defun pypto-eglot--contact (_interactive)
  "Eglot contact: read at start-up so a later `setq' of the command still counts."
  pypto-eglot-server-command)

;;;###autoload
(defun pypto-eglot-setup ()
  "Make Eglot use pypto-lsp for `pypto-eglot-major-modes'.
The entry goes first in `eglot-server-programs', ahead of Eglot's
own Python servers."
  (add-to-list 'eglot-server-programs (cons pypto-eglot-major-modes #'pypto-eglot--contact)))

(defun pypto-eglot--server ()
  (or (eglot-current-server) (user-error "No Eglot server manages this buffer")))

(defun pypto-eglot-code-lenses ()
  "The current buffer's code lenses as a list of (LINE . TITLE), LINE 0-based.
Eglot has no code-lens support, so this sends `textDocument/codeLens'
itself and resolves lenses that come without a command."
  (let* ((server (pypto-eglot--server))
         (lenses (jsonrpc-request server :textDocument/codeLens
                                  `(:textDocument ,(eglot--TextDocumentIdentifier)))))
    (delq nil
          (mapcar (lambda (lens)
                    (let ((lens (if (plist-get lens :command)
                                    lens
                                  (jsonrpc-request server :codeLens/resolve lens))))
                      (when-let ((title (plist-get (plist-get lens :command) :title)))
                        (cons (plist-get (plist-get (plist-get lens :range) :start) :line) title))))
                  lenses))))

(defun pypto-eglot--clear-lenses ()
  (remove-overlays (point-min) (point-max) 'pypto-eglot-lens t))

(defun pypto-eglot-show-code-lenses ()
  "Show the current buffer's code lenses, each on a line above its scope."
  (interactive)
  (let ((lenses (pypto-eglot-code-lenses)))
    (save-excursion
      (save-restriction
        (widen)
        (pypto-eglot--clear-lenses)
        (dolist (lens lenses)
          (goto-char (point-min))
          (forward-line (car lens))
          (back-to-indentation)
          (let ((overlay (make-overlay (line-beginning-position) (line-beginning-position))))
            (overlay-put overlay 'pypto-eglot-lens t)
            (overlay-put overlay 'pypto-eglot-title (cdr lens))
            (overlay-put overlay 'before-string
                         (concat (make-string (current-column) ?\s)
                                 (propertize (cdr lens) 'face 'pypto-eglot-lens-face)
                                 "\n"))))))))

(defvar-local pypto-eglot--lens-timer nil)
(defvar pypto-eglot-lens-mode)

(defun pypto-eglot--refresh-lenses-later (&rest _)
  (when (timerp pypto-eglot--lens-timer)
    (cancel-timer pypto-eglot--lens-timer))
  (let ((buffer (current-buffer)))
    (setq pypto-eglot--lens-timer
          (run-with-idle-timer pypto-eglot-lens-idle-delay nil
                               (lambda ()
                                 (when (buffer-live-p buffer)
                                   (with-current-buffer buffer
                                     (when (and pypto-eglot-lens-mode (eglot-current-server))
                                       (pypto-eglot-show-code-lenses)))))))))

;;;###autoload
(define-minor-mode pypto-eglot-lens-mode
  "Show pypto-lsp code lenses (the function each scope becomes) in this buffer."
  :lighter nil
  (if pypto-eglot-lens-mode
      (progn
        (add-hook 'after-change-functions #'pypto-eglot--refresh-lenses-later nil t)
        (pypto-eglot--refresh-lenses-later))
    (remove-hook 'after-change-functions #'pypto-eglot--refresh-lenses-later t)
    (when (timerp pypto-eglot--lens-timer)
      (cancel-timer pypto-eglot--lens-timer))
    (pypto-eglot--clear-lenses)))

(defun pypto-eglot-outlined-program ()
  "The outlined program of the current buffer, from `pypto/outlinedProgram'."
  (plist-get (jsonrpc-request (pypto-eglot--server) :pypto/outlinedProgram
                              `(:uri ,(plist-get (eglot--TextDocumentIdentifier) :uri)))
             :text))

(defun pypto-eglot-show-outlined-program ()
  "Show the outlined program of the current buffer in a read-only buffer beside it."
  (interactive)
  (let ((text (pypto-eglot-outlined-program))
        (buffer (get-buffer-create (format "*pypto-outlined: %s*" (buffer-name)))))
    (with-current-buffer buffer
      (let ((inhibit-read-only t))
        (erase-buffer)
        (insert text))
      (python-mode)
      (setq buffer-read-only t)
      (goto-char (point-min)))
    (display-buffer buffer '(display-buffer-pop-up-window))
    buffer))

(provide 'pypto-eglot)
;;; pypto-eglot.el ends here
